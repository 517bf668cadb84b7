export { compilePatterns, type PathMatcher } from './compile-patterns.js';
export { isValidPattern, patternSchema, type Role, roleSchema } from './role-schema.js';
