/** What every form field may carry besides its kind. */
interface FieldLabel {
  /** The label the user sees; defaults to the field's name. */
  title?: string;
  /** A line of help under the label. */
  description?: string;
}

/** One option of a titled choice: the value the tool receives, and the label the user sees. */
export interface FormOption {
  const: string;
  title: string;
}

/** Free text. */
export interface TextField extends FieldLabel {
  type: 'string';
  minLength?: number;
  maxLength?: number;
  /** The client may offer a matching input; the gateway checks the answer has this format. */
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
}

/** A number; `integer` accepts whole numbers only. */
export interface NumberField extends FieldLabel {
  type: 'number' | 'integer';
  minimum?: number;
  maximum?: number;
  default?: number;
}

/** Yes or no. */
export interface BooleanField extends FieldLabel {
  type: 'boolean';
  default?: boolean;
}

/** One value out of a list, shown as the values themselves. */
export interface ChoiceField extends FieldLabel {
  type: 'string';
  enum: string[];
  /**
   * Labels for the values of `enum`, in the same order.
   *
   * @deprecated Use a {@link TitledChoiceField} (`oneOf`) instead; kept for clients that only
   *   know this older form.
   */
  enumNames?: string[];
  default?: string;
}

/** One value out of a list, each shown with its own label. */
export interface TitledChoiceField extends FieldLabel {
  type: 'string';
  oneOf: FormOption[];
  default?: string;
}

/** Any number of values out of a list, shown as the values themselves. */
export interface MultiChoiceField extends FieldLabel {
  type: 'array';
  items: { type: 'string'; enum: string[] };
  minItems?: number;
  maxItems?: number;
  default?: string[];
}

/** Any number of values out of a list, each shown with its own label. */
export interface TitledMultiChoiceField extends FieldLabel {
  type: 'array';
  items: { anyOf: FormOption[] };
  minItems?: number;
  maxItems?: number;
  default?: string[];
}

/**
 * One field of a form a tool asks the user to fill in (`ctx.elicit({ type: 'form', fields })`).
 * The shapes are MCP's form elicitation schema, so clients show them as they are.
 *
 * @example
 * const fields: Record<string, FormField> = {
 *   name: { type: 'string', title: 'Name', minLength: 1 },
 *   size: { type: 'string', title: 'Size', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
 *   tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['red', 'blue'] } },
 * };
 */
export type FormField =
  | TextField
  | NumberField
  | BooleanField
  | ChoiceField
  | TitledChoiceField
  | MultiChoiceField
  | TitledMultiChoiceField;

/** A value of a filled-in field: text or a choice, a number, yes or no, or several choices. */
export type FormValue = string | number | boolean | string[];

/** The form a `type: 'form'` request asks the user to fill in. */
export interface ElicitForm {
  fields: Record<string, FormField>;
  /** The names of the fields the user must fill in. */
  required: string[];
}
