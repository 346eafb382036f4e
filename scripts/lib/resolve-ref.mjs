// A node of the bundled document with its local `$ref`s followed (`#/components/...`), for the
// build scripts that read the bundle (code-samples.mjs, reshaped-answers.mjs); `{}` for none.
export function resolveRef(document, node) {
  let value = node;
  while (value && typeof value.$ref === 'string') {
    value = value.$ref
      .slice(2)
      .split('/')
      .reduce((at, key) => at?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  }
  return value ?? {};
}
