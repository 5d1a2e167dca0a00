/** A value that does not parse; the caller prefixes the name of the setting it came from. */
export class ValueError extends Error {
  override readonly name = 'ValueError';
}
