/** A configuration problem, reported to the user as one line that names the setting; the CLI exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';

  constructor(message: string) {
    // One line, always: a multi-line cause would break the "one clear line" contract of the CLI.
    super(message.replace(/\s*\n\s*/g, ' '));
  }
}
