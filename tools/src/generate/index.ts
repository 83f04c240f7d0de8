// The files the repository commits and a script generates (package subpath
// @voicegw/tools/generate): each writer, and what tests check them with.
export { checkGenerated, generatedFileScript } from './generated-file.js';
export type { CheckResult, GeneratedFile } from './generated-file.js';
export { OPENAPI_DOCUMENT, OPENAPI_FILE, openApiText, serializeOpenApi } from './openapi.js';
export { renderErrorsDoc } from './errors-doc.js';
export { CONTRACT_FILE, contractText } from './sdk-contract.js';
export {
  CONFIG_SCHEMAS,
  CONFIGURATION_PAGES,
  renderConfigurationPage,
} from './configuration-doc.js';
export type { ConfigSchemas, ConfigurationPage, RegionId, Variables } from './configuration-doc.js';
