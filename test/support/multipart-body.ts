// Writes multipart/form-data bodies by hand, so a test controls every byte: odd field and file names, any
// content type, and deliberately broken forms (no terminator, wrong boundary, missing headers).
export interface FormPart {
  readonly name: string;
  readonly value: string | Uint8Array;
  /** Present for a file part. */
  readonly fileName?: string;
  readonly contentType?: string;
}

export type FormMalformation =
  | 'none'
  | 'unterminated'
  | 'wrong-boundary'
  | 'no-boundary'
  | 'no-disposition'
  | 'empty-body'
  | 'garbage-prefix';

export interface EncodedForm {
  readonly contentType: string;
  readonly body: Uint8Array;
}

/** Browsers percent-encode `"`, CR and LF in names; `raw` writes them as they are and can break the header. */
function quoted(text: string, quoting: 'browser' | 'raw'): string {
  return quoting === 'raw' ? text : text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function encodeForm(
  parts: readonly FormPart[],
  options: { boundary: string; quoting: 'browser' | 'raw'; malformation: FormMalformation },
): EncodedForm {
  const { boundary, quoting, malformation } = options;
  const chunks: Buffer[] = [];
  if (malformation === 'garbage-prefix') chunks.push(Buffer.from('this is not a form\r\n'));
  const written = malformation === 'wrong-boundary' ? `${boundary}x` : boundary;
  for (const part of parts) {
    const headers: string[] = [];
    if (malformation !== 'no-disposition') {
      const fileName = part.fileName === undefined ? '' : `; filename="${quoted(part.fileName, quoting)}"`;
      headers.push(`Content-Disposition: form-data; name="${quoted(part.name, quoting)}"${fileName}`);
    }
    if (part.contentType !== undefined) headers.push(`Content-Type: ${part.contentType.replace(/[\r\n]/g, ' ')}`);
    chunks.push(Buffer.from(`--${written}\r\n${headers.join('\r\n')}\r\n\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  if (malformation !== 'unterminated') chunks.push(Buffer.from(`--${written}--\r\n`));
  const body = malformation === 'empty-body' ? new Uint8Array() : new Uint8Array(Buffer.concat(chunks));
  const contentType = malformation === 'no-boundary' ? 'multipart/form-data' : `multipart/form-data; boundary=${boundary}`;
  return { contentType, body };
}
