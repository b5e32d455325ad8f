// The login page: one field, the team token, posted as a form so it never appears in a URL.
import type { Child } from "hono/jsx";

/** The login form; `error` is shown above it after a refused token. */
export function LoginPage(props: { next: string; error?: string }): Child {
  return (
    <section class="login">
      <h1>Sign in to the ledger</h1>
      <p class="hint">
        Paste a team token (the one your agents send as <code>Authorization: Bearer …</code>). It is exchanged for a
        session cookie; the token itself is not kept in the browser.
      </p>
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form method="post" action="/ui/login">
        <label for="token">Team token</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus />
        <input type="hidden" name="next" value={props.next} />
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
