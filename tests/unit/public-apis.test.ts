/**
 * Dependencies are used through their public APIs only: nothing in src/
 * reads or writes another package's private members, reaches a member a
 * package does not declare by casting its object to another type, replaces
 * a method of another package's object, or patches
 * objects and prototypes (`Object.defineProperty`, `setPrototypeOf`,
 * `__proto__`, writes through `.prototype`). Checked with TypeScript's own
 * checker over everything `tsc` checks, so an alias or a cast cannot hide an
 * access. What truly must remain is listed in ALLOWED, by file and exact
 * source text, with the reason; an entry that matches nothing fails too.
 */
import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import ts from "typescript";
import { ROOT } from "../helpers/agent-process.ts";

interface Finding {
  file: string;
  rule: string;
  text: string;
}

/** Accesses that must stay, each with why; matched by file and the exact source text of the access. */
const ALLOWED: readonly (Omit<Finding, "rule"> & { why: string })[] = [
  {
    file: "src/acp/sdk.ts",
    text: "(sdk as { __loadSchemas?: (names: readonly string[]) => void }).__loadSchemas",
    why: "our own build adds __loadSchemas to the SDK's bundled module (scripts/lazy-acp-schemas.mjs); run from source it is absent and nothing happens",
  },
];

function sourceFiles(): ts.Program {
  const configPath = join(ROOT, "tsconfig.json");
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/**
 * Declared by another package: under node_modules, but neither the language's
 * standard library nor the runtimes' own APIs (Node's, Bun's, Deno's), which
 * the runtime layer may feature-test by casting.
 */
const RUNTIME_TYPES = ["/node_modules/typescript/lib/", "/node_modules/@types/node/", "/node_modules/bun-types/", "/node_modules/@types/bun/", "/node_modules/@types/deno/"];
const inPackage = (node: ts.Node) => {
  const name = node.getSourceFile().fileName;
  return name.includes("/node_modules/") && !RUNTIME_TYPES.some((dir) => name.includes(dir));
};

/** Whether every declaration of `symbol` (aliases followed) comes from a package. */
function fromPackage(checker: ts.TypeChecker, symbol: ts.Symbol | undefined): boolean {
  if (!symbol) return false;
  const resolved = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const declarations = resolved.declarations ?? [];
  return declarations.length > 0 && declarations.every(inPackage);
}

/** Whether a value of this type is an object a package made (its declarations, or its module's, are in a package). */
function typeFromPackage(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return false;
  if (type.isUnion()) return type.types.some((t) => typeFromPackage(checker, t));
  return fromPackage(checker, type.getSymbol() ?? type.aliasSymbol);
}

function isPrivateMember(declaration: ts.Declaration): boolean {
  if (ts.isPropertyDeclaration(declaration) || ts.isMethodDeclaration(declaration) || ts.isGetAccessor(declaration) || ts.isSetAccessor(declaration)) {
    if (declaration.name && ts.isPrivateIdentifier(declaration.name)) return true;
  }
  return (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0;
}

/** Whether writing this member replaces a package's behaviour: a method (public fields, such as callbacks a package documents, are its API). */
function isMethod(declaration: ts.Declaration): boolean {
  return ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration);
}

const unwrapCasts = (node: ts.Expression): ts.Expression => {
  let current = node;
  while (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isTypeAssertionExpression(current) || ts.isNonNullExpression(current)) {
    current = current.expression;
  }
  return current;
};

const isCast = (node: ts.Expression): boolean => {
  let current = node;
  while (ts.isParenthesizedExpression(current)) current = current.expression;
  return ts.isAsExpression(current) || ts.isTypeAssertionExpression(current);
};

function isWriteTarget(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent) && parent.left === node) {
    return parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  }
  if (ts.isDeleteExpression(parent)) return true;
  if ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(parent.operator)) return true;
  return false;
}

const PATCHING_CALLS = new Set(["Object.defineProperty", "Object.defineProperties", "Object.setPrototypeOf", "Reflect.defineProperty", "Reflect.setPrototypeOf", "Reflect.set"]);

function findings(): Finding[] {
  const program = sourceFiles();
  const checker = program.getTypeChecker();
  const out: Finding[] = [];
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || source.fileName.includes("/node_modules/")) continue;
    const file = relative(ROOT, source.fileName);
    const report = (rule: string, node: ts.Node) => out.push({ file, rule, text: node.getText(source) });
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
        const name = ts.isPropertyAccessExpression(node) ? node.name.text : ts.isStringLiteralLike(node.argumentExpression) ? node.argumentExpression.text : undefined;
        const symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node.argumentExpression);
        const declarations = symbol?.declarations ?? [];
        const packaged = declarations.length > 0 && declarations.every(inPackage);
        if (packaged && declarations.some(isPrivateMember)) report("a package's private member", node);
        if (packaged && isWriteTarget(node) && declarations.some(isMethod)) report("a package's method replaced", node);
        if (name === "__proto__") report("__proto__", node);
        if (name === "prototype" && isWriteTarget(node.parent)) report("a prototype patched", node.parent);
        if (name !== undefined && isCast(node.expression)) {
          const original = unwrapCasts(node.expression);
          const type = checker.getNonNullableType(checker.getTypeAtLocation(original));
          const declared = checker.getPropertyOfType(checker.getApparentType(type), name);
          const hidden = !declared || (declared.declarations ?? []).some(isPrivateMember);
          if (hidden && typeFromPackage(checker, type)) report("a member a package does not declare (or keeps private), reached through a cast", node);
        }
      }
      if (ts.isCallExpression(node) && PATCHING_CALLS.has(node.expression.getText(source))) report("an object patched", node);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe("dependencies through their public APIs only", () => {
  const found = findings();

  test("nothing in src/ reaches into another package's internals, except what ALLOWED lists", () => {
    const allowed = (f: Finding) => ALLOWED.some((a) => a.file === f.file && a.text === f.text);
    expect(found.filter((f) => !allowed(f))).toEqual([]);
  });

  test("every ALLOWED entry still matches something (a stale entry would hide a new access)", () => {
    const unused = ALLOWED.filter((a) => !found.some((f) => f.file === a.file && f.text === a.text));
    expect(unused).toEqual([]);
  });
});
