import { isPlugin, validatePlugin } from '@gateway/sdk';
import { createTestContext, runTool } from '@gateway/sdk/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import plugin, { CONFORMANCE_PREFIX, conformanceToolName } from './index.js';

const tool = (name: string) => {
  const found = plugin.tools.find((t) => t.path === `${CONFORMANCE_PREFIX}${name}`);
  if (found === undefined) throw new Error(`${name} is missing`);
  return found;
};

describe('conformance plugin', () => {
  it('is a valid plugin whose tools are served under the names the suite calls', () => {
    expect(isPlugin(plugin)).toBe(true);
    expect(validatePlugin(plugin)).toEqual([]);
    expect(plugin.tools.map(conformanceToolName)).toContain('test_simple_text');
    expect(conformanceToolName({ path: 'notes.notes.list' })).toBe('notes.notes.list');
  });

  it('returns the fixture results', async () => {
    const ctx = createTestContext();
    expect(await runTool(tool('test_simple_text'), {}, ctx)).toBe(
      'This is a simple text response for testing.',
    );
    expect(await runTool(tool('test_image_content'), {}, ctx)).toMatchObject({
      content: [{ type: 'image', mimeType: 'image/png' }],
    });
    await expect(runTool(tool('test_error_handling'), {}, ctx)).rejects.toThrow(/intentionally/);
  });

  it("answers with the client's model, and fails without one", async () => {
    const ctx = createTestContext({ sample: 'This is a test response from the client' });
    expect(await runTool(tool('test_sampling'), { prompt: 'Test prompt' }, ctx)).toBe(
      'LLM response: This is a test response from the client',
    );
    expect(ctx.samples).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt' } }],
        maxTokens: 100,
      },
    ]);
    await expect(
      runTool(tool('test_sampling'), { prompt: 'x' }, createTestContext()),
    ).rejects.toThrow(/does not offer sampling/);
  });

  it('reports progress, and asks for a form with every kind of choice', async () => {
    const ctx = createTestContext({
      approve: () => ({
        approved: true,
        data: { titledSingle: 'value2', titledMulti: ['value1', 'value3'] },
      }),
    });
    await runTool(tool('test_tool_with_progress'), {}, ctx);
    expect(ctx.progress).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
    expect(await runTool(tool('test_elicitation_sep1330_enums'), {}, ctx)).toBe(
      'Elicitation completed: action=accept, content={"titledSingle":"value2","titledMulti":["value1","value3"]}',
    );
    expect(Object.keys(ctx.elicitations[0]?.fields ?? {})).toEqual([
      'untitledSingle',
      'titledSingle',
      'legacyEnum',
      'untitledMulti',
      'titledMulti',
    ]);
  });

  it('keeps the JSON Schema 2020-12 keywords the suite looks for', () => {
    const schema = z.toJSONSchema(tool('json_schema_2020_12_tool').inputSchema, { io: 'input' });
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      additionalProperties: false,
      $defs: { address: { type: 'object' } },
    });
  });
});
