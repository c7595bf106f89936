/**
 * What tools/list (and OpenAPI) tell a model about each input: every field
 * described, and the original tool set's parameter names
 * (shared/reference/agent-tools.md) present where our tools take them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { inputJsonSchema } from '../../src/surfaces/tools/json-schema.ts';

type Schema = { type?: string; properties?: Record<string, Schema>; description?: string; required?: string[] };

const schemaOf = (name: string): Schema => inputJsonSchema(TOOLS.find((t) => t.name === name)!.input) as Schema;

test('every input field of every tool has a description for the model', () => {
  const missing: string[] = [];
  for (const tool of TOOLS) {
    const schema = inputJsonSchema(tool.input) as Schema;
    assert.equal(schema.type, 'object', tool.name);
    for (const [field, s] of Object.entries(schema.properties ?? {})) if (!s.description?.trim()) missing.push(`${tool.name}.${field}`);
  }
  // deep_recall.maxResults, the blackboard tools' key/pattern/limit/tags and episodes_recent's three fields had none.
  assert.deepEqual(missing, []);
  assert.ok(schemaOf('recall_range').properties!.entries!.properties!.from!.description);
});

test("the original tool set's parameters are in the listed schemas, and only its required ones are required", () => {
  const original: Record<string, { params: string[]; required: string[] }> = {
    memory_search: { params: ['query', 'maxResults', 'minScore'], required: ['query'] },
    memory_get: { params: ['path', 'from', 'lines'], required: [] },
    memory_pin: { params: ['action', 'key', 'value', 'statement', 'category'], required: ['action'] },
    working_memory_note: { params: ['note', 'importance', 'type'], required: ['note'] },
    memory_status: { params: ['action'], required: [] },
    recall_range: { params: ['entries', 'turns', 'grep', 'include_tool_results', 'max_chars', 'session_id'], required: [] },
    deep_recall: { params: ['query', 'scope', 'include_memory'], required: ['query'] },
    self_state: { params: [], required: [] },
  };
  for (const [name, want] of Object.entries(original)) {
    const schema = schemaOf(name);
    for (const p of want.params) assert.ok(schema.properties?.[p], `${name} lists ${p}`);
    assert.deepEqual(schema.required ?? [], want.required, `${name} requires`);
  }
});
