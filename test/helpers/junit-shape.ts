/**
 * A structural check of a JUnit XML report, as CI readers need it (the
 * shape Jenkins' JUnit plugin, GitLab and the GitHub test-report actions
 * read): well-formed XML, a `<testsuites>` root with `tests`/`failures`
 * counts, `<testsuite name tests failures time>` inside, `<testcase name
 * classname time>` inside those, and each `<failure message>` inside a
 * testcase. Returns the problems found (none: valid) and what it read.
 */
export interface JunitCase {
  name: string;
  classname: string;
  failure: { message: string; type: string | undefined; text: string } | null;
  isSkipped: boolean;
}

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string, problems: string[]): string {
  return text.replace(/&([a-z]+|#\d+|#x[0-9a-f]+);|&/gi, (whole, name: string | undefined) => {
    if (!name) {
      problems.push('a bare & (must be &amp;)');
      return whole;
    }
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    if (!(name in ENTITIES)) problems.push(`an unknown entity &${name};`);
    return ENTITIES[name] ?? whole;
  });
}

function parseXml(xml: string, problems: string[]): Element | null {
  const body = xml.replace(/^\uFEFF?<\?xml[^?]*\?>\s*/, '');
  if (body === xml && !xml.startsWith('<?xml')) problems.push('no <?xml …?> declaration');
  const root: Element = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: Element[] = [root];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const match of body.matchAll(token)) {
    const [, closing, name, attrs, selfClosing, text, stray] = match;
    const top = stack[stack.length - 1]!;
    if (stray) {
      problems.push(`a stray "<" at ${match.index}`);
      continue;
    }
    if (text !== undefined) {
      if (top === root && text.trim() !== '') problems.push('text outside the root element');
      top.text += decode(text, problems);
      continue;
    }
    if (closing) {
      if (top.name !== name) problems.push(`</${name}> closes <${top.name}>`);
      else stack.pop();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const a of (attrs ?? '').matchAll(/([\w:.-]+)\s*=\s*"([^"<]*)"/g)) {
      if (a[1]! in attributes) problems.push(`attribute ${a[1]} twice on <${name}>`);
      attributes[a[1]!] = decode(a[2]!, problems);
    }
    const element: Element = { name: name!, attributes, children: [], text: '' };
    top.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) problems.push(`<${stack[stack.length - 1]!.name}> is never closed`);
  if (root.children.length !== 1) problems.push(`${root.children.length} root elements`);
  return root.children[0] ?? null;
}

function need(element: Element, names: readonly string[], problems: string[], numeric: readonly string[] = []): void {
  for (const name of names) if (!(name in element.attributes)) problems.push(`<${element.name}> has no ${name}`);
  for (const name of numeric) {
    const value = element.attributes[name];
    if (value !== undefined && !/^\d+(\.\d+)?$/.test(value)) problems.push(`<${element.name} ${name}="${value}"> is not a number`);
  }
}

export function checkJunitShape(xml: string): { problems: string[]; cases: JunitCase[]; counts: { tests: number; failures: number } } {
  const problems: string[] = [];
  const cases: JunitCase[] = [];
  const root = parseXml(xml, problems);
  if (!root || root.name !== 'testsuites') problems.push(`the root is <${root?.name}>, not <testsuites>`);
  if (!root) return { problems, cases, counts: { tests: 0, failures: 0 } };
  need(root, ['tests', 'failures'], problems, ['tests', 'failures', 'errors', 'skipped', 'time']);
  for (const suite of root.children) {
    if (suite.name !== 'testsuite') problems.push(`<${suite.name}> inside <testsuites>`);
    need(suite, ['name', 'tests', 'failures', 'time'], problems, ['tests', 'failures', 'errors', 'skipped', 'time']);
    let failures = 0;
    for (const testcase of suite.children) {
      if (testcase.name !== 'testcase') problems.push(`<${testcase.name}> inside <testsuite>`);
      need(testcase, ['name', 'classname', 'time'], problems, ['time']);
      const failure = testcase.children.find((c) => c.name === 'failure');
      for (const child of testcase.children) if (!['failure', 'error', 'skipped', 'system-out', 'system-err'].includes(child.name)) problems.push(`<${child.name}> inside <testcase>`);
      if (failure) {
        failures += 1;
        need(failure, ['message'], problems);
      }
      cases.push({
        name: testcase.attributes.name ?? '',
        classname: testcase.attributes.classname ?? '',
        failure: failure ? { message: failure.attributes.message ?? '', type: failure.attributes.type, text: failure.text } : null,
        isSkipped: testcase.children.some((c) => c.name === 'skipped'),
      });
    }
    if (Number(suite.attributes.tests) !== suite.children.length) problems.push(`<testsuite tests="${suite.attributes.tests}"> holds ${suite.children.length} testcases`);
    if (Number(suite.attributes.failures) !== failures) problems.push(`<testsuite failures="${suite.attributes.failures}"> holds ${failures} failures`);
  }
  const tests = Number(root.attributes.tests);
  const failures = Number(root.attributes.failures);
  if (tests !== cases.length) problems.push(`<testsuites tests="${tests}"> holds ${cases.length} testcases`);
  return { problems, cases, counts: { tests, failures } };
}
