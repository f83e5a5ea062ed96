/** The one normaliser of line ends: CRLF and a lone CR read as LF. A text with no CR is returned as it is. */
export function toLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}
