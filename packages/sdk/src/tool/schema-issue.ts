/** A schema issue as zod reports it; typed structurally so any zod 4 copy fits. */
export interface SchemaIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** Formats schema issues one per line as `field: message`, for error results people read. */
export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues
    .map((issue) => `${issue.path.map(String).join('.') || '(input)'}: ${issue.message}`)
    .join('\n');
}

/** The outcome of a validation: the parsed value, or every issue found. */
export type ValidationResult<T = unknown> =
  | { success: true; data: T }
  | { success: false; issues: readonly SchemaIssue[] };
