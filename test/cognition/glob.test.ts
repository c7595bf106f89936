import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob, compileMatcher, fnmatch, isGlob, translateGlob } from '../../src/cognition/glob.ts';

/**
 * [name, pattern, expected]. Expected values are Python 3.11's
 * `fnmatch.fnmatchcase(name, pattern)`, checked once against the interpreter.
 * Groups: empty strings; `*` and dots/newlines; `?`; classes, negation, ranges;
 * `]` first in a class; unclosed `[`; reversed ranges; regex metacharacters
 * (which must be literal); astral code points; the seed's registry patterns.
 */
const CASES: Array<[string, string, boolean]> = [
  ["", "", true],
  ["", "*", true],
  ["a", "", false],
  ["", "?", false],
  ["abc", "*", true],
  ["a.b.c", "*", true],
  ["a.b.c", "a.*", true],
  ["a", "a.*", false],
  ["a.", "a.*", true],
  ["a\nb", "a*b", true],
  ["a\nb", "a?b", true],
  ["safety.weight_update_blocked", "safety.*blocked*", true],
  ["safety.blocked", "safety.*blocked*", true],
  ["safety.x_blocked_y", "safety.*blocked*", true],
  ["safetyXblocked", "safety.*blocked*", false],
  ["Safety.blocked", "safety.*blocked*", false],
  ["abc", "a?c", true],
  ["ac", "a?c", false],
  ["abbc", "a?c", false],
  ["a.c", "a?c", true],
  ["b", "[abc]", true],
  ["d", "[abc]", false],
  ["d", "[!abc]", true],
  ["a", "[!abc]", false],
  ["m", "[a-z]", true],
  ["M", "[a-z]", false],
  ["-", "[a-]", true],
  ["-", "[-a]", true],
  ["b", "[-a]", false],
  ["]", "[]]", true],
  ["]", "[]a]", true],
  ["a", "[]a]", true],
  ["b", "[]a]", false],
  ["]", "[!]]", false],
  ["a", "[!]]", true],
  ["[", "[", true],
  ["[a", "[a", true],
  ["[!]", "[!]", true],
  ["x", "[!]", false],
  ["a", "[z-a]", false],
  ["z", "[z-a]", false],
  ["q", "[!z-a]", true],
  ["b", "[az-ab]", true],
  ["m", "[az-ab]", false],
  ["-", "[a-c-e]", true],
  ["d", "[a-c-e]", false],
  ["e", "[a-c-e]", true],
  ["\\", "[\\]", true],
  ["\\", "\\", true],
  ["a\\b", "a\\b", true],
  ["a+b", "a+b", true],
  ["aab", "a+b", false],
  ["a(b)", "a(b)", true],
  ["a$", "a$", true],
  ["^a", "^a", true],
  ["a|b", "a|b", true],
  ["a", "a|b", false],
  ["a.b", "a.b", true],
  ["axb", "a.b", false],
  ["x{2}", "x{2}", true],
  ["xx", "x{2}", false],
  ["&", "[&&]", true],
  ["~", "[~]", true],
  ["|", "[|x]", true],
  ["^", "[^]", true],
  ["a", "[^]", false],
  ["[", "[[]", true],
  ["*", "[*]", true],
  ["a", "[*]", false],
  ["k.*", "k.[*]", true],
  ["abc", "**c", true],
  ["é", "?", true],
  ["😀", "?", true],
  ["😀x", "?x", true],
  ["ab", "a[!b]", false],
  ["ac", "a[!b]", true],
  ["a", "a[!b]", false],
  ["learning.new_association.x", "learning.new_association.*", true],
  ["learning.new_association", "learning.new_association.*", false],
  ["--", "[--0]-", true],
  ["/", "[--0]", true],
  ["1", "[--0]", false],
  ["abc", "a*b*c*", true],
  ["a", "*a*", true],
  ["", "[]", false],
  ["]", "[]", false],
  ["[]", "[]", true],
  ["ab", "[!]a]b", false],
  ["]b", "[!]a]b", false],
];

test('fnmatch agrees with Python fnmatchcase on the edge-case table', () => {
  for (const [name, pattern, expected] of CASES) {
    assert.equal(fnmatch(name, pattern), expected, `fnmatch(${JSON.stringify(name)}, ${JSON.stringify(pattern)})`);
  }
});

test('compileMatcher gives the same answers as fnmatch (its fast paths included)', () => {
  for (const [name, pattern, expected] of CASES) {
    assert.equal(compileMatcher(pattern)(name), expected, `matcher ${JSON.stringify(pattern)} on ${JSON.stringify(name)}`);
  }
  const extra: Array<[string, string, boolean]> = [
    ['safety.x', 'safety.*', true],
    ['safety', 'safety.*', false],
    ['anything', '**', true],
    ['goal.achieved', 'goal.achieved', true],
    ['goal.achievedX', 'goal.achieved', false],
    ['ab', 'a?', true],
    ['b', 'a?', false],
  ];
  for (const [name, pattern, expected] of extra) assert.equal(compileMatcher(pattern)(name), expected, `${pattern} on ${name}`);
});

test('patterns compile once and are cached', () => {
  assert.equal(compileGlob('cache.*.test'), compileGlob('cache.*.test'));
});

test('consecutive stars collapse and the RegExp is anchored', () => {
  assert.equal(translateGlob('a***b'), '^\\u{61}.*\\u{62}$');
  assert.equal(fnmatch('xab', 'a*b'), false);
  assert.equal(fnmatch('abx', 'a*b'), false);
});

test('isGlob tells patterns from plain keys', () => {
  assert.equal(isGlob('goal.achieved'), false);
  assert.equal(isGlob('goal.*'), true);
  assert.equal(isGlob('a?'), true);
  assert.equal(isGlob('a[b]'), true);
  assert.equal(isGlob('a]b'), false);
});
