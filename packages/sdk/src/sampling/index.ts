export { validateSampleRequest, validateSampleResult } from './validate-sample.js';
