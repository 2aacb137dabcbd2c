import { describe, expect, it } from "vitest";
import { dropEventHandlers } from "./eventAttributes";

describe("dropEventHandlers", () => {
  it("takes out event handlers, quoted, unquoted or bare, and keeps every other attribute", () => {
    expect(dropEventHandlers(`<img src="x" alt='a b' onerror="alert(1)">`)).toBe(`<img src="x" alt='a b' >`);
    expect(dropEventHandlers(`<div onclick=go() class=c>t</div>`)).toBe(`<div  class=c>t</div>`);
    expect(dropEventHandlers(`<p ONMOUSEOVER = "x" title="on">`)).toBe(`<p  title="on">`);
    expect(dropEventHandlers(`<details open ontoggle>`)).toBe(`<details open >`);
  });

  it("reads attributes as the tokenizer does: after a slash, a quote holding >, an unclosed quote", () => {
    expect(dropEventHandlers(`<img/onerror=alert(1)//src=x>`)).toBe(`<img >`);
    expect(dropEventHandlers(`<a title="a>b" onclick="c">d</a>`)).toBe(`<a title="a>b" >d</a>`);
    expect(dropEventHandlers(`<svg><rect onload="x"/></svg>`)).toBe(`<svg><rect /></svg>`);
    expect(dropEventHandlers(`<img src=x onerror="never closed>`)).toBe(`<img src=x `);
  });

  it("leaves text, end tags and comments alone, handlers named in them included", () => {
    const kept = `a < b and 3<4 <!-- <img onerror=x> --> </p onclick=x> onclick="not an attribute"`;
    expect(dropEventHandlers(kept)).toBe(kept);
    expect(dropEventHandlers(`<p>plain</p>`)).toBe(`<p>plain</p>`);
    expect(dropEventHandlers(`ends with <`)).toBe(`ends with <`);
  });
});
