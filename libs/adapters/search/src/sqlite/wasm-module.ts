// The encoding the hand-assembled scan modules share (wasm-scan.ts, int8-scan.ts): a module of one function of five
// i32 parameters and no result or an i32 one, no imports, exporting its memory (1 page to start) and the function,
// and its instantiation where WebAssembly is available.

const uleb = (value: number): number[] => {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
};
const section = (id: number, items: number[][]): number[] => {
  const content = [...uleb(items.length), ...items.flat()];
  return [id, ...uleb(content.length), ...content];
};
/** A SIMD instruction (prefix 0xfd) by its opcode. */
export const simd = (op: number): number[] => [0xfd, ...uleb(op)];
const name = (text: string): number[] => [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];

export const I32 = 0x7f;
export const V128 = 0x7b;

/**
 * The bytes of the module whose one function, exported as `exported`, has the locals and code of `body` (and
 * returns an i32 when `returnsI32`).
 */
export function oneFunctionModule(exported: string, body: readonly number[], returnsI32 = false): Uint8Array {
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [[0x60, 5, I32, I32, I32, I32, I32, ...(returnsI32 ? [1, I32] : [0])]]),
    ...section(3, [[0]]),
    ...section(5, [[0, 1]]),
    ...section(7, [
      [...name('memory'), 2, 0],
      [...name(exported), 0, 0],
    ]),
    ...section(10, [[...uleb(body.length), ...body]]),
  ]);
}

/** The part of the WebAssembly API used here (the project's lib settings declare no WebAssembly types). */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: unknown };
}

/** The module's exports, or null where WebAssembly is unavailable (compiling may still throw: callers catch). */
export function instantiate<T>(bytes: Uint8Array): T | null {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  return api ? (new api.Instance(new api.Module(bytes)).exports as T) : null;
}
