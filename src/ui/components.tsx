// Small components the pages share: chips that filter, outcome badges, stat tiles, the keyset pager. Plain props only.
import type { Child } from "hono/jsx";
import { href, type Params } from "./format.js";

/**
 * The htmx attributes that make a link swap only the element `#target` from the page it names and push that URL;
 * without JavaScript the link is an ordinary link.
 */
export function swapTo(to: string, target: string | undefined): Record<string, string> {
  return target === undefined
    ? {}
    : { "hx-get": to, "hx-target": `#${target}`, "hx-select": `#${target}`, "hx-push-url": "true" };
}

/** A violation code as a chip linking to `to`; `count` shows beside it when given; `on` marks the active filter. */
export function CodeChip(props: { code: string; to: string; count?: number; on?: boolean; swap?: string }): Child {
  return (
    <a class={props.on ? "chip code on" : "chip code"} href={props.to} {...swapTo(props.to, props.swap)}>
      {props.code}
      {props.count === undefined ? null : <span class="n">{props.count.toLocaleString("en-US")}</span>}
    </a>
  );
}

/** A session label `key:value` as a chip linking to `to`. */
export function LabelChip(props: { name: string; value: string; to: string; swap?: string }): Child {
  return (
    <a class="chip label" href={props.to} {...swapTo(props.to, props.swap)}>
      <span class="k">{props.name}</span>
      {props.value}
    </a>
  );
}

/** A crossing outcome, a call verdict, an audit status or an evaluation status as a coloured badge. */
export function Badge(props: { value: string }): Child {
  return <span class={`badge b-${props.value.replace(/[^a-z_]/g, "")}`}>{props.value.replace(/_/g, " ")}</span>;
}

/** A headline figure with its label and a line of context. */
export function Stat(props: { label: string; value: string; note?: string; tone?: "bad" | "ok" }): Child {
  return (
    <div class={props.tone ? `stat ${props.tone}` : "stat"}>
      <div class="v">{props.value}</div>
      <div class="l">{props.label}</div>
      {props.note ? <div class="note">{props.note}</div> : null}
    </div>
  );
}

/**
 * "First page" and "Next page" links for a keyset list. Each link swaps only the list when htmx is loaded (and
 * pushes the link's URL, so the address stays a permalink), and is an ordinary link without JavaScript.
 */
export function Pager(props: {
  path: string;
  params: Params;
  next: string | null;
  target: string;
  shown: number;
}): Child {
  const hasCursor = props.params.some(([k]) => k === "cursor");
  const swap = (to: string) => swapTo(to, props.target);
  const first = href(
    props.path,
    props.params.filter(([k]) => k !== "cursor"),
  );
  const next =
    props.next === null
      ? null
      : href(props.path, [...props.params.filter(([k]) => k !== "cursor"), ["cursor", props.next]]);
  return (
    <nav class="pager" aria-label="pages">
      <span class="shown">{`${props.shown} shown${props.next === null ? "" : ", more follow"}`}</span>
      {hasCursor ? (
        <a href={first} {...swap(first)}>
          « First page
        </a>
      ) : null}
      {next === null ? null : (
        <a href={next} rel="next" {...swap(next)}>
          Next page »
        </a>
      )}
    </nav>
  );
}

/** A note in place of an empty table. */
export function Empty(props: { children?: Child }): Child {
  return <p class="empty">{props.children}</p>;
}
