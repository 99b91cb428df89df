/**
 * Spec 9: responses may gain fields and unknown request fields are ignored, so no object in
 * the document is closed with `additionalProperties: false`.
 */
export function openObjects<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(openObjects);
  else if (node && typeof node === "object") {
    const obj = node as Record<string, unknown>;
    if (obj.additionalProperties === false) delete obj.additionalProperties;
    for (const v of Object.values(obj)) openObjects(v);
  }
  return node;
}
