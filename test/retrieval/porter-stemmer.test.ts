import { test } from 'node:test';
import assert from 'node:assert/strict';
import { porterStem } from '../../src/retrieval/text/porter-stemmer.ts';

// Pairs from Porter's 1980 paper (steps 1-5 examples) and the reference
// implementation's vocabulary/output files, including its departures from the
// paper (-bli -> -ble, -logi -> -log, words of <= 2 letters untouched).
const CASES: Array<[string, string]> = [
  // step 1a
  ['caresses', 'caress'], ['ponies', 'poni'], ['ties', 'ti'], ['caress', 'caress'], ['cats', 'cat'],
  // step 1b
  ['feed', 'feed'], ['agreed', 'agre'], ['plastered', 'plaster'], ['bled', 'bled'], ['motoring', 'motor'], ['sing', 'sing'],
  ['conflated', 'conflat'], ['troubled', 'troubl'], ['sized', 'size'], ['hopping', 'hop'], ['tanned', 'tan'], ['falling', 'fall'],
  ['hissing', 'hiss'], ['fizzed', 'fizz'], ['failing', 'fail'], ['filing', 'file'],
  // step 1c
  ['happy', 'happi'], ['sky', 'sky'],
  // step 2
  ['relational', 'relat'], ['conditional', 'condit'], ['rational', 'ration'], ['valenci', 'valenc'], ['hesitanci', 'hesit'],
  ['digitizer', 'digit'], ['conformabli', 'conform'], ['radicalli', 'radic'], ['differentli', 'differ'], ['vileli', 'vile'],
  ['analogousli', 'analog'], ['vietnamization', 'vietnam'], ['predication', 'predic'], ['operator', 'oper'], ['feudalism', 'feudal'],
  ['decisiveness', 'decis'], ['hopefulness', 'hope'], ['callousness', 'callous'], ['formaliti', 'formal'], ['sensitiviti', 'sensit'],
  ['sensibiliti', 'sensibl'],
  // step 3
  ['triplicate', 'triplic'], ['formative', 'form'], ['formalize', 'formal'], ['electriciti', 'electr'], ['electrical', 'electr'],
  ['hopeful', 'hope'], ['goodness', 'good'],
  // step 4
  ['revival', 'reviv'], ['allowance', 'allow'], ['inference', 'infer'], ['airliner', 'airlin'], ['gyroscopic', 'gyroscop'],
  ['adjustable', 'adjust'], ['defensible', 'defens'], ['irritant', 'irrit'], ['replacement', 'replac'], ['adjustment', 'adjust'],
  ['dependent', 'depend'], ['adoption', 'adopt'], ['homologou', 'homolog'], ['communism', 'commun'], ['activate', 'activ'],
  ['angulariti', 'angular'], ['homologous', 'homolog'], ['effective', 'effect'], ['bowdlerize', 'bowdler'],
  // step 5
  ['probate', 'probat'], ['rate', 'rate'], ['cease', 'ceas'], ['controll', 'control'], ['roll', 'roll'],
  // several steps, and the reference's departures
  ['generalizations', 'gener'], ['oscillators', 'oscil'], ['running', 'run'], ['generously', 'gener'], ['national', 'nation'],
  ['analogy', 'analog'], ['archaeology', 'archaeolog'], ['flies', 'fli'], ['dying', 'dy'], ['lying', 'ly'], ['ies', 'i'],
  ['is', 'is'], ['as', 'as'], ['a', 'a'], ['sly', 'sly'], ['2023', '2023'], ['covid19', 'covid19'],
];

test('porterStem matches the reference stemmer on known word/stem pairs', () => {
  for (const [word, stem] of CASES) assert.equal(porterStem(word), stem, `${word} -> ${stem}`);
});

