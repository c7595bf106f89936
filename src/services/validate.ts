import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';

/**
 * Parses input against a schema and turns the first problems into one clear
 * MnemosError that names the fields, so every surface reports bad input the
 * same way and nothing is written.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ field: i.path.length ? i.path.join('.') : '(input)', message: i.message }));
  const summary = issues
    .slice(0, 3)
    .map((i) => `${i.field}: ${i.message}`)
    .join('; ');
  throw new MnemosError('validation_failed', `invalid ${what}: ${summary}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}`, {
    field: issues[0]?.field,
    issues,
  });
}

export const isoTime = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: 'must be an ISO-8601 time such as 2026-05-01T12:00:00Z' });
