export { type AskFormRequest, type AskFormResult, askForm } from './ask-form.js';
export { elicitForm } from './elicit-form.js';
export type {
  BooleanField,
  ChoiceField,
  ElicitForm,
  FormField,
  FormOption,
  FormValue,
  MultiChoiceField,
  NumberField,
  TextField,
  TitledChoiceField,
  TitledMultiChoiceField,
} from './form-field.js';
export { urlElicitationProblem, validateElicitRequest } from './validate-elicit-request.js';
export { validateFormAnswer } from './validate-form-answer.js';
