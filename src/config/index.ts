/** Configuration: flags > environment > YAML file > defaults, parsed once into a frozen Config. */
export { ConfigError } from './errors.js';
export { FLAG_TABLE, SECRET_ENV, envNameOf, type FlagSpec, type FlagKind, type FlagGroup } from './flags.js';
export { helpText, configTableMarkdown, replaceConfigTable } from './help.js';
export { parseCommandLine, parseConfig, COMMERCIAL_TOKEN_URL, type CommandLine, type ConfigInput } from './parse.js';
export { parseBytes, parseDuration, formatDuration } from '../util/units.js';
export * from './types.js';
