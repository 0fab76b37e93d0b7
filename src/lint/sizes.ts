// Long files and long functions say why they are long: a file over 300 lines starts with a line
// "// One file over 300 lines on purpose: …", a function over 80 lines has "Over 80 lines on
// purpose: …" in the comment just above it. Everything else is split until it reads in one sitting.
import ts from "typescript";

export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 80;
const FILE_REASON = /^\/\/ One file over 300 lines on purpose: \S/;
const FUNCTION_REASON = /Over 80 lines on purpose: \S/;

export interface LongPart {
  file: string;
  line: number;
  lines: number;
  what: string;
}

/** A test's describe/it callbacks are cases, not functions a reader must hold in mind at once. */
const isTestCase = (node: ts.Node) =>
  (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
  ts.isCallExpression(node.parent) &&
  /^(describe|it|test|beforeAll|afterAll|beforeEach|afterEach)\b/.test(node.parent.expression.getText());

/** The long file and the long functions of one source that give no reason. */
export function unexplainedLengths(file: string, text: string): LongPart[] {
  const found: LongPart[] = [];
  const lines = text.split("\n");
  // The first line, or the first after a directive ("use client") that must come first.
  const firstLine = /^["']use \w+["'];?$/.test(lines[0] ?? "") ? lines[1] : lines[0];
  if (lines.length > MAX_FILE_LINES && !FILE_REASON.test(firstLine ?? "")) found.push({ file, line: 1, lines: lines.length, what: "file" });
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (node: ts.Node) => {
    const isFunction = ts.isFunctionDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node);
    if (isFunction && !isTestCase(node)) {
      // An arrow or function expression is read from the statement that names it.
      let owner: ts.Node = node;
      while (!ts.isSourceFile(owner.parent) && !ts.isBlock(owner.parent) && !ts.isClassDeclaration(owner.parent) && !ts.isObjectLiteralExpression(owner.parent))
        owner = owner.parent;
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const comments = ts.getLeadingCommentRanges(text, owner.getFullStart()) ?? [];
      const explained = comments.some((range) => FUNCTION_REASON.test(text.slice(range.pos, range.end)));
      if (last - first + 1 > MAX_FUNCTION_LINES && !explained) {
        const name =
          ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)
            ? node.name?.getText()
            : ts.isVariableDeclaration(node.parent)
              ? node.parent.name.getText()
              : undefined;
        found.push({ file, line: first + 1, lines: last - first + 1, what: `function ${name ?? "(anonymous)"}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
