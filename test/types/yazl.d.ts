// yazl (a dev dependency: tests write zips with it, hostile ones included) ships JavaScript only; these
// are the parts the tests use.
declare module 'yazl' {
  import type { Readable } from 'node:stream';
  export class ZipFile {
    outputStream: Readable;
    addBuffer(buffer: Buffer, metadataPath: string, options?: { mode?: number; mtime?: Date; compress?: boolean }): void;
    addEmptyDirectory(metadataPath: string, options?: { mode?: number; mtime?: Date }): void;
    end(): void;
  }
  const yazl: { ZipFile: typeof ZipFile };
  export default yazl;
}
