export {
  answerMetaTool,
  CALL_TOOL,
  DESCRIBE_TOOLS,
  isMetaTool,
  MAX_DESCRIBE_BYTES,
  MAX_DESCRIBE_NAMES,
  MAX_SEARCH_LIMIT,
  META_TOOLS,
  type MetaOutcome,
  SEARCH_TOOLS,
} from './meta-tools.js';
export { type SearchAnswer, SearchIndex, searchIndexOf, type ToolSummary } from './search-index.js';
export { terms } from './terms.js';
export { SearchWarmer } from './warm-searches.js';
