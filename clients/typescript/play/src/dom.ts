// Building the page's elements: a tag, its attributes and its children, in one
// call. Attributes are set as attributes (never as HTML), so no text a server
// or a link supplies can become markup.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

function fill<E extends Element>(element: E, attributes: Attributes, children: Child[]): E {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) {
      element.setAttribute(name, "");
    } else if (value !== false && value !== null && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) {
      element.append(child);
    }
  }
  return element;
}

/** An HTML element. */
export function html<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attributes, children);
}

/** An SVG element. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  return fill(document.createElementNS("http://www.w3.org/2000/svg", tag), attributes, children);
}

/** A button that runs `action` when pressed. */
export function button(label: string, action: () => void, attributes: Attributes = {}): HTMLButtonElement {
  const element = html("button", { type: "button", ...attributes }, label);
  element.addEventListener("click", action);
  return element;
}

/** A labelled select of `options` (value, text). */
export function choice(label: string, name: string, options: [string, string][]): HTMLLabelElement {
  return html("label", {}, label, html("select", { name }, ...options.map(([value, text]) => html("option", { value }, text))));
}
