/**
 * The YAML parser (`yaml`), in a module of its own that `frontmatter.ts`
 * imports when a frontmatter needs it: sessions whose files have none never
 * load it. (A dynamic import of the package itself would lose its named
 * exports in the Node bundle, where it is CommonJS.)
 * @module
 */
export { parseDocument } from "yaml";
