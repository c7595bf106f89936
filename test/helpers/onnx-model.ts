/**
 * A tiny BERT-shaped model directory made at test time, so the ONNX provider's
 * loading code runs against the real @huggingface/transformers and
 * onnxruntime-node without downloading anything.
 *
 * The ONNX file is protobuf written here by hand (see `Proto` below): a graph
 * with the three inputs a BERT export has (input_ids, attention_mask,
 * token_type_ids, int64 [batch, seq]) and one output, last_hidden_state
 * (float [batch, seq, hidden]):
 *
 *   last_hidden_state = (words[input_ids] + types[token_type_ids]) * attention_mask
 *
 * Two Gathers from float initializers, an Add, and the mask cast to float,
 * unsqueezed to [batch, seq, 1] and multiplied in. Every token's hidden state
 * is therefore known in advance, so a test can compute the pooled vector
 * itself from the same tables and compare.
 *
 * The tokenizer is a WordPiece vocabulary with BERT's normaliser
 * (lower-casing), pre-tokeniser and [CLS]/[SEP] post-processing.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// ---- a minimal protobuf writer ----------------------------------------------

const VARINT = 0;
const LENGTH_DELIMITED = 2;

/** Little-endian base-128 varint; negative numbers as 64-bit two's complement (ten bytes), as protobuf writes int64. */
function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** One message being written: fields appended in call order. */
class Proto {
  private readonly bytes: number[] = [];

  private key(field: number, wireType: number): void {
    this.bytes.push(...varint((field << 3) | wireType));
  }

  int(field: number, value: number | bigint): this {
    this.key(field, VARINT);
    this.bytes.push(...varint(value));
    return this;
  }

  raw(field: number, data: Uint8Array | readonly number[]): this {
    this.key(field, LENGTH_DELIMITED);
    this.bytes.push(...varint(data.length));
    for (const b of data) this.bytes.push(b);
    return this;
  }

  string(field: number, value: string): this {
    return this.raw(field, new TextEncoder().encode(value));
  }

  message(field: number, value: Proto): this {
    return this.raw(field, value.bytes);
  }

  /** A packed repeated int64 field. */
  packedInts(field: number, values: readonly number[]): this {
    return this.raw(field, values.flatMap((v) => varint(v)));
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

// ---- ONNX messages (field numbers from onnx.proto) --------------------------

const FLOAT = 1; // TensorProto.DataType
const INT64 = 7;
const ATTRIBUTE_INT = 2; // AttributeProto.AttributeType

/** TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian). */
function tensor(name: string, dims: readonly number[], dataType: number, data: Uint8Array): Proto {
  return new Proto().packedInts(1, dims).int(2, dataType).string(8, name).raw(9, data);
}

function floatTensor(name: string, dims: readonly number[], values: Float32Array): Proto {
  const buf = new Uint8Array(values.length * 4);
  const view = new DataView(buf.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return tensor(name, dims, FLOAT, buf);
}

function int64Tensor(name: string, dims: readonly number[], values: readonly number[]): Proto {
  const buf = new Uint8Array(values.length * 8);
  const view = new DataView(buf.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  return tensor(name, dims, INT64, buf);
}

/** ValueInfoProto (name = 1, type = 2) of a tensor whose dimensions are named (dim_param) or fixed (dim_value). */
function valueInfo(name: string, elemType: number, dims: ReadonlyArray<string | number>): Proto {
  const shape = new Proto();
  for (const d of dims) shape.message(1, typeof d === 'string' ? new Proto().string(2, d) : new Proto().int(1, d));
  const tensorType = new Proto().int(1, elemType).message(2, shape); // TypeProto.Tensor: elem_type = 1, shape = 2
  return new Proto().string(1, name).message(2, new Proto().message(1, tensorType)); // TypeProto: tensor_type = 1
}

/** NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5. */
function node(opType: string, inputs: readonly string[], outputs: readonly string[], intAttributes: Record<string, number> = {}): Proto {
  const n = new Proto();
  for (const i of inputs) n.string(1, i);
  for (const o of outputs) n.string(2, o);
  n.string(3, `${opType}_${outputs[0]}`).string(4, opType);
  // AttributeProto: name = 1, i = 3, type = 20
  for (const [name, value] of Object.entries(intAttributes)) n.message(5, new Proto().string(1, name).int(3, value).int(20, ATTRIBUTE_INT));
  return n;
}

export interface TinyBertWeights {
  /** Row i is the hidden state of token id i, before the token-type row is added. */
  words: Float32Array;
  /** Two rows: token type 0 and 1. */
  types: Float32Array;
  hidden: number;
}

/** ModelProto bytes of the graph described at the top of this file (IR version 8, opset 13). */
export function tinyBertOnnx({ words, types, hidden }: TinyBertWeights): Uint8Array {
  const vocabSize = words.length / hidden;
  const ids = ['batch', 'sequence'];
  const graph = new Proto()
    .message(1, node('Gather', ['word_embeddings', 'input_ids'], ['word_states']))
    .message(1, node('Gather', ['token_type_embeddings', 'token_type_ids'], ['type_states']))
    .message(1, node('Add', ['word_states', 'type_states'], ['token_states']))
    .message(1, node('Cast', ['attention_mask'], ['mask_float'], { to: FLOAT }))
    .message(1, node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_column']))
    .message(1, node('Mul', ['token_states', 'mask_column'], ['last_hidden_state']))
    .string(2, 'tiny_bert')
    .message(5, floatTensor('word_embeddings', [vocabSize, hidden], words))
    .message(5, floatTensor('token_type_embeddings', [2, hidden], types))
    .message(5, int64Tensor('last_axis', [1], [2]))
    .message(11, valueInfo('input_ids', INT64, ids))
    .message(11, valueInfo('attention_mask', INT64, ids))
    .message(11, valueInfo('token_type_ids', INT64, ids))
    .message(12, valueInfo('last_hidden_state', FLOAT, [...ids, hidden]));
  // ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 (OperatorSetIdProto: domain = 1, version = 2)
  return new Proto()
    .int(1, 8)
    .string(2, 'mnemos-test')
    .message(7, graph)
    .message(8, new Proto().string(1, '').int(2, 13))
    .finish();
}

// ---- the model directory ----------------------------------------------------

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** Vocabulary: the special tokens (ids 0-4), then `words` in order; "##x" entries continue a word. */
export function vocabulary(words: readonly string[]): Map<string, number> {
  return new Map([...SPECIAL_TOKENS, ...words].map((t, i) => [t, i]));
}

function tokenizerJson(vocab: Map<string, number>): unknown {
  const id = (t: string): number => vocab.get(t)!;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((t) => ({ id: id(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', cls: ['[CLS]', id('[CLS]')], sep: ['[SEP]', id('[SEP]')] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab) },
  };
}

export interface TinyBertDirectory extends TinyBertWeights {
  vocab: Map<string, number>;
}

/**
 * Writes config.json, tokenizer.json, tokenizer_config.json and the ONNX file
 * (`onnx/model.onnx`, or `onnx/model_quantized.onnx` when `modelFile` says so)
 * into `dir`.
 */
export async function writeTinyBert(dir: string, model: TinyBertDirectory, modelFile = 'onnx/model.onnx'): Promise<void> {
  const { vocab, hidden } = model;
  if (model.words.length !== vocab.size * hidden) throw new Error(`words must hold ${vocab.size} rows of ${hidden}`);
  if (model.types.length !== 2 * hidden) throw new Error(`types must hold 2 rows of ${hidden}`);
  await mkdir(join(dir, 'onnx'), { recursive: true });
  const config = { model_type: 'bert', architectures: ['BertModel'], hidden_size: hidden, vocab_size: vocab.size, type_vocab_size: 2, num_hidden_layers: 0, num_attention_heads: 1, max_position_embeddings: 64 };
  const tokenizerConfig = { tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 64, pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]', mask_token: '[MASK]', clean_up_tokenization_spaces: true };
  await writeFile(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig, null, 2));
  await writeFile(join(dir, modelFile), tinyBertOnnx(model));
}

/** Deterministic pseudo-random table values in [-1, 1) (a 32-bit xorshift), rounded to float32. */
export function seededTable(length: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  return Float32Array.from({ length }, () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 31 - 1;
  });
}
