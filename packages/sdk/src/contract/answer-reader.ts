import { z } from 'zod';

/**
 * The schema a client reads an answer of the gateway with, made from the gateway's own answer
 * schema: every object keeps the fields it does not declare (`z.looseObject`), so a newer gateway
 * that adds a field breaks no reader and `--json` passes the field on. The server's schema strips
 * them instead, which keeps its OpenAPI document exact (`additionalProperties: false`).
 *
 * @example
 * const me = answerReader(meSchema);
 * const caller = me.parse(await response.json());
 */
export function answerReader<T extends z.ZodType>(schema: T): z.ZodType<z.output<T>> {
  // The walk rebuilds the same shapes with loose objects, so the output type is the schema's.
  return loosen(schema) as z.ZodType<z.output<T>>;
}

function loosen(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = {};
    for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      shape[key] = loosen(field);
    }
    return z.looseObject(shape);
  }
  if (schema instanceof z.ZodArray) return z.array(loosen(schema.element as z.ZodType));
  if (schema instanceof z.ZodOptional) return loosen(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return loosen(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const options = (schema.options as z.ZodType[]).map(loosen) as [z.ZodObject, ...z.ZodObject[]];
    return z.discriminatedUnion(schema._zod.def.discriminator, options);
  }
  if (schema instanceof z.ZodUnion) {
    return z.union((schema.options as z.ZodType[]).map(loosen) as [z.ZodType, ...z.ZodType[]]);
  }
  if (schema instanceof z.ZodRecord) {
    return z.record(schema.keyType as z.ZodString, loosen(schema.valueType as z.ZodType));
  }
  return schema;
}
