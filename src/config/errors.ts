/** A configuration problem, reported to the user as one line that names the setting; the CLI exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';

  constructor(message: string) {
    // One line, always: a multi-line cause would break the "one clear line" contract of the CLI.
    super(message.replace(/\s*\n\s*/g, ' '));
  }
}

/** A value that does not parse; the caller prefixes the name of the setting it came from. */
export class ValueError extends Error {
  override readonly name = 'ValueError';
}
