// The encoding the hand-assembled scan modules share (wasm-scan.ts, int8-scan.ts): a module of one function of five
// i32 parameters and no result or an i32 one, exporting its memory and the function, and its instantiation where
// WebAssembly is available. The memory is the module's own (1 page to start), or a shared one it imports (`env`
// `memory`, up to SHARED_PAGES): the same codes scanned by more than one thread (int8-helper.ts).

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

/** The most pages a shared memory grows to (4 GiB, all a 32-bit module addresses). */
export const SHARED_PAGES = 65536;

/**
 * The bytes of the module whose one function, exported as `exported`, has the locals and code of `body` (and
 * returns an i32 when `returnsI32`); with `sharedMemory`, the memory is imported (shared, 1 to SHARED_PAGES pages).
 */
export function oneFunctionModule(
  exported: string,
  body: readonly number[],
  returnsI32 = false,
  sharedMemory = false,
): Uint8Array {
  // Limits: flags 3 (shared, with a maximum), 1 page, the maximum.
  const memoryImport = [...name('env'), ...name('memory'), 2, 3, 1, ...uleb(SHARED_PAGES)];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [[0x60, 5, I32, I32, I32, I32, I32, ...(returnsI32 ? [1, I32] : [0])]]),
    ...(sharedMemory ? section(2, [memoryImport]) : []),
    ...section(3, [[0]]),
    ...(sharedMemory ? [] : section(5, [[0, 1]])),
    ...section(7, [
      [...name('memory'), 2, 0],
      [...name(exported), 0, 0],
    ]),
    ...section(10, [[...uleb(body.length), ...body]]),
  ]);
}

/** A module's memory, as the WebAssembly API gives it. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly API used here (the project's lib settings declare no WebAssembly types). */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports?: object) => { readonly exports: unknown };
  readonly Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}

const webAssembly = (): WebAssemblyApi | undefined =>
  (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

/**
 * The module's exports, or null where WebAssembly is unavailable (compiling may still throw: callers catch); a module
 * made with `sharedMemory` is given `memory`.
 */
export function instantiate<T>(bytes: Uint8Array, memory?: WasmMemory): T | null {
  const api = webAssembly();
  return api
    ? (new api.Instance(new api.Module(bytes), memory ? { env: { memory } } : undefined).exports as T)
    : null;
}

/** A new shared memory of one page, for a module made with `sharedMemory` (throws where threads are unavailable). */
export function sharedMemory(): WasmMemory {
  const api = webAssembly();
  if (!api) throw new Error('WebAssembly is unavailable');
  return new api.Memory({ initial: 1, maximum: SHARED_PAGES, shared: true });
}
