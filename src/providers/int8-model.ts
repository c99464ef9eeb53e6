// The bundled model's 4-bit matrix multiplications rewritten as onnxruntime's int8 ones, once per install.
//
// all-MiniLM-L6-v2 ships as 4-bit weights (MatMulNBits, blocks of 32 with a float scale each). onnxruntime computes
// those in float32 at about one core's float speed; its int8 matrix multiplication (DynamicQuantizeMatMul, which
// rounds each input matrix to uint8 with one scale) runs the whole model about 1.5x faster on AVX2. The weights
// become int8 with one scale per output column, from the same 4-bit values. They use 7 bits (-63..63): AVX2's
// multiply-add of uint8 by int8 pairs saturates 16-bit sums above 32,767, and 2 x 255 x 63 stays below, so every CPU
// computes the same integers. Retrieval quality is unchanged within noise (README, bench:quality).
//
// ONNX files are protobuf. Only what the rewrite needs is decoded: the graph's nodes and initializers; every other
// field is copied as it is. The result is written once next to the 4-bit file, its weights in a data file of their
// own: onnxruntime then loads it as fast as the original (~90 ms, ~100 MB), where loading converted bytes took
// ~600 ms and ~400 MB in each worker.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import protobuf from 'protobufjs/minimal.js';
import { modelFile } from './local-model-settings.js';

const { Reader, Writer } = protobuf;
const integer = (reader: protobuf.Reader): number => protobuf.util.LongBits.from(reader.int64()).toNumber();

/** Protobuf wire types. */
const varint = 0;
const lengthDelimited = 2;

/** Field numbers of onnx.proto. */
const modelGraph = 7;
const graphNode = 1;
const graphInitializer = 5;
const nodeInput = 1;
const nodeOutput = 2;
const nodeName = 3;
const nodeOpType = 4;
const nodeAttribute = 5;
const nodeDomain = 7;
const attributeName = 1;
const attributeInt = 3;
const tensorDims = 1;
const tensorDataType = 2;
const tensorName = 8;
const tensorRawData = 9;
const tensorExternalData = 13;
const tensorDataLocation = 14;
const externalLocation = 1;
const entryKey = 1;
const entryValue = 2;

/** TensorProto.DataType. */
const floatType = 1;
const int8Type = 3;

/** Largest int8 weight: 7 bits, see above. */
const weightLimit = 63;
/** Tensors of more bytes go to the data file, each at a multiple of the page size (so they can be mapped). */
const externalThreshold = 1024;
const dataAlignment = 4096;

interface Field {
  readonly number: number;
  /** The field as it was encoded, tag included. */
  readonly encoded: Uint8Array;
  /** The payload of a length-delimited field, or the value of a varint field. */
  readonly bytes?: Uint8Array;
  readonly value?: number;
}

function* fields(message: Uint8Array): Generator<Field> {
  const reader = Reader.create(message);
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const key = reader.uint32();
    const number = key >>> 3;
    const wireType = key & 7;
    let bytes: Uint8Array | undefined;
    let value: number | undefined;
    if (wireType === lengthDelimited) bytes = reader.bytes();
    else if (wireType === varint) value = integer(reader);
    else reader.skipType(wireType);
    yield { number, encoded: message.subarray(start, reader.pos), bytes, value };
  }
}

const text = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? []).toString('utf8');

interface Tensor {
  readonly name: string;
  /** The tensor's bytes, from raw_data or from the external data file; undefined if stored in typed fields. */
  readonly data: Uint8Array | undefined;
  /** The TensorProto's fields but those that hold or locate its bytes, to re-encode it with them elsewhere. */
  readonly otherFields: Uint8Array[];
}

function readTensor(message: Uint8Array, externalData: Uint8Array): Tensor {
  let name = '';
  let data: Uint8Array | undefined;
  const external = new Map<string, string>();
  const otherFields: Uint8Array[] = [];
  for (const field of fields(message)) {
    if (field.number === tensorName) name = text(field.bytes);
    if (field.number === tensorRawData) data = field.bytes;
    if (field.number === tensorExternalData) {
      let key = '';
      let value = '';
      for (const entry of fields(field.bytes ?? new Uint8Array())) {
        if (entry.number === entryKey) key = text(entry.bytes);
        if (entry.number === entryValue) value = text(entry.bytes);
      }
      external.set(key, value);
    }
    if (field.number !== tensorRawData && field.number !== tensorExternalData && field.number !== tensorDataLocation)
      otherFields.push(field.encoded);
  }
  if (external.size > 0) {
    const offset = Number(external.get('offset') ?? 0);
    const length = Number(external.get('length') ?? externalData.length - offset);
    if (offset + length > externalData.length) throw new Error(`initializer ${name} lies outside the external data file`);
    data = externalData.subarray(offset, offset + length);
  }
  return { name, data, otherFields };
}

const tag = (field: number, wireType: number): number => (field << 3) | wireType;

/** Writes a length-delimited field holding what `write` writes. */
function writeMessage(writer: protobuf.Writer, field: number, write: () => void): void {
  writer.uint32(tag(field, lengthDelimited)).fork();
  write();
  writer.ldelim();
}

/** Collects the tensors' bytes of the data file and says where each one lies in it. */
class DataFile {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  constructor(readonly name: string) {}

  append(data: Uint8Array): { offset: number; length: number } {
    const padding = (dataAlignment - (this.size % dataAlignment)) % dataAlignment;
    if (padding > 0) this.parts.push(new Uint8Array(padding));
    const offset = this.size + padding;
    this.parts.push(data);
    this.size = offset + data.length;
    return { offset, length: data.length };
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts, this.size);
  }
}

/** A tensor's data: in raw_data if small, else in the data file. */
function writeTensorData(writer: protobuf.Writer, data: Uint8Array, dataFile: DataFile): void {
  if (data.length <= externalThreshold) {
    writer.uint32(tag(tensorRawData, lengthDelimited)).bytes(data);
    return;
  }
  const { offset, length } = dataFile.append(data);
  for (const [key, value] of [
    ['location', dataFile.name],
    ['offset', String(offset)],
    ['length', String(length)],
  ] as const)
    writeMessage(writer, tensorExternalData, () => {
      writer.uint32(tag(entryKey, lengthDelimited)).string(key);
      writer.uint32(tag(entryValue, lengthDelimited)).string(value);
    });
  writer.uint32(tag(tensorDataLocation, varint)).int32(externalLocation);
}

function writeTensor(
  writer: protobuf.Writer,
  name: string,
  dims: readonly number[],
  dataType: number,
  data: Uint8Array,
  dataFile: DataFile,
): void {
  writeMessage(writer, graphInitializer, () => {
    for (const dim of dims) writer.uint32(tag(tensorDims, varint)).int64(dim);
    writer.uint32(tag(tensorDataType, varint)).int32(dataType);
    writer.uint32(tag(tensorName, lengthDelimited)).string(name);
    writeTensorData(writer, data, dataFile);
  });
}

/** An initializer as it was, its data moved to the new data file (or kept in typed fields). */
function writeInitializer(writer: protobuf.Writer, tensor: Tensor, field: Field, dataFile: DataFile): void {
  if (tensor.data === undefined) {
    writer.raw(field.encoded);
    return;
  }
  writeMessage(writer, graphInitializer, () => {
    for (const other of tensor.otherFields) writer.raw(other);
    writeTensorData(writer, tensor.data as Uint8Array, dataFile);
  });
}

interface Node {
  readonly name: string;
  readonly opType: string;
  readonly inputs: string[];
  readonly outputs: string[];
  readonly attributes: Map<string, number>;
}

function readNode(message: Uint8Array): Node {
  const node = { name: '', opType: '', inputs: [] as string[], outputs: [] as string[], attributes: new Map<string, number>() };
  for (const field of fields(message)) {
    if (field.number === nodeName) node.name = text(field.bytes);
    if (field.number === nodeOpType) node.opType = text(field.bytes);
    if (field.number === nodeInput) node.inputs.push(text(field.bytes));
    if (field.number === nodeOutput) node.outputs.push(text(field.bytes));
    if (field.number === nodeAttribute) {
      let name = '';
      let value: number | undefined;
      for (const part of fields(field.bytes ?? new Uint8Array())) {
        if (part.number === attributeName) name = text(part.bytes);
        if (part.number === attributeInt) value = part.value;
      }
      if (value !== undefined) node.attributes.set(name, value);
    }
  }
  return node;
}

function writeNode(writer: protobuf.Writer, node: Node, opType: string, domain: string): void {
  writeMessage(writer, graphNode, () => {
    for (const input of node.inputs) writer.uint32(tag(nodeInput, lengthDelimited)).string(input);
    for (const output of node.outputs) writer.uint32(tag(nodeOutput, lengthDelimited)).string(output);
    writer.uint32(tag(nodeName, lengthDelimited)).string(node.name);
    writer.uint32(tag(nodeOpType, lengthDelimited)).string(opType);
    writer.uint32(tag(nodeDomain, lengthDelimited)).string(domain);
  });
}

const floats = (bytes: Uint8Array): Float32Array => new Float32Array(Uint8Array.from(bytes).buffer);

/**
 * The weights of one 4-bit MatMulNBits (B: [N][blocks][block / 2] bytes, low nibble first; zero point 8) as int8
 * [K][N] with one scale per column.
 */
export function int8Weights(
  packed: Uint8Array,
  blockScales: Float32Array,
  shape: { readonly k: number; readonly n: number; readonly blockSize: number },
): { weights: Int8Array; scales: Float32Array } {
  const { k, n, blockSize } = shape;
  const blocks = Math.ceil(k / blockSize);
  const bytesPerBlock = blockSize / 2;
  if (packed.length !== n * blocks * bytesPerBlock || blockScales.length !== n * blocks)
    throw new Error(`4-bit weights of ${packed.length} bytes and ${blockScales.length} scales do not fit ${k} x ${n}`);
  const column = new Float32Array(blocks * blockSize);
  const weights = new Int8Array(k * n);
  const scales = new Float32Array(n);
  for (let output = 0; output < n; output++) {
    let largest = 0;
    for (let block = output * blocks, row = 0; block < (output + 1) * blocks; block++) {
      const blockScale = blockScales[block] as number;
      for (let at = block * bytesPerBlock; at < (block + 1) * bytesPerBlock; at++, row += 2) {
        const byte = packed[at] as number;
        const low = ((byte & 0x0f) - 8) * blockScale;
        const high = ((byte >> 4) - 8) * blockScale;
        column[row] = low;
        column[row + 1] = high;
        largest = Math.max(largest, Math.abs(low), Math.abs(high));
      }
    }
    const scale = largest === 0 ? 1 : largest / weightLimit;
    scales[output] = scale;
    for (let row = 0; row < k; row++) weights[row * n + output] = Math.round((column[row] as number) / scale);
  }
  return { weights, scales };
}

/**
 * The model (the .onnx file's bytes and its external data file's) with each 4-bit MatMulNBits replaced by a
 * DynamicQuantizeMatMul over int8 weights; its tensors' data goes to a new data file named `dataFileName`.
 */
export function toInt8Model(model: Uint8Array, externalData: Uint8Array, dataFileName: string): { model: Uint8Array; data: Buffer } {
  const modelFields = [...fields(model)];
  const graphFields = [...fields(modelFields.find((field) => field.number === modelGraph)?.bytes ?? new Uint8Array())];
  const initializers = new Map(
    graphFields
      .filter((field) => field.number === graphInitializer)
      .map((field) => [field, readTensor(field.bytes as Uint8Array, externalData)]),
  );
  const tensors = new Map([...initializers.values()].map((tensor) => [tensor.name, tensor]));
  const nodes = graphFields
    .filter((field) => field.number === graphNode)
    .map((field) => ({ field, node: readNode(field.bytes as Uint8Array) }));
  if (nodes.length === 0) throw new Error('the model has no graph');

  const writer = Writer.create();
  const dataFile = new DataFile(dataFileName);
  const replaced = new Set<string>();
  const writeGraph = () => {
    for (const { field, node } of nodes) {
      if (node.opType !== 'MatMulNBits') {
        writer.raw(field.encoded);
        continue;
      }
      const [input = '', packedName = '', scalesName = '', ...optional] = node.inputs;
      const k = node.attributes.get('K') ?? 0;
      const n = node.attributes.get('N') ?? 0;
      const blockSize = node.attributes.get('block_size') ?? 0;
      const packed = tensors.get(packedName)?.data;
      const blockScales = tensors.get(scalesName)?.data;
      if (node.attributes.get('bits') !== 4 || optional.some((name) => name !== '') || packed === undefined || blockScales === undefined)
        throw new Error(`${node.name}: only 4-bit MatMulNBits with stored weights and scales and no zero points can be rewritten`);
      const { weights, scales } = int8Weights(packed, floats(blockScales), { k, n, blockSize });
      const weightsName = `${packedName}_int8`;
      writeTensor(writer, weightsName, [k, n], int8Type, new Uint8Array(weights.buffer), dataFile);
      writeTensor(writer, `${weightsName}_scales`, [n], floatType, new Uint8Array(scales.buffer), dataFile);
      writeNode(writer, { ...node, inputs: [input, weightsName, `${weightsName}_scales`] }, 'DynamicQuantizeMatMul', 'com.microsoft');
      replaced.add(packedName).add(scalesName);
    }
    for (const field of graphFields) {
      if (field.number === graphNode) continue;
      const tensor = initializers.get(field);
      if (tensor === undefined) writer.raw(field.encoded);
      else if (!replaced.has(tensor.name)) writeInitializer(writer, tensor, field, dataFile);
    }
  };
  for (const field of modelFields) {
    if (field.number === modelGraph) writeMessage(writer, modelGraph, writeGraph);
    else writer.raw(field.encoded);
  }
  return { model: writer.finish(), data: dataFile.bytes() };
}

/**
 * `onnx/model_int8.onnx` (and its `_data`) in the model's folder, converted from the 4-bit file the first time. The
 * data file is renamed into place before the model file, so a model file present is a complete pair; workers
 * converting at the same time write the same bytes, each under a name of its own first.
 */
export async function int8ModelFile(directory: string): Promise<string> {
  const target = join(directory, 'onnx', 'model_int8.onnx');
  if (existsSync(target)) return target;
  const source = join(directory, modelFile);
  const [model, externalData] = await Promise.all([readFile(source), readFile(`${source}_data`)]);
  const converted = toInt8Model(model, externalData, `${basename(target)}_data`);
  const suffix = `.${randomUUID()}.partial`;
  const files = [
    [`${target}_data`, converted.data],
    [target, converted.model],
  ] as const;
  try {
    for (const [file, bytes] of files) {
      await writeFile(file + suffix, bytes);
      await rename(file + suffix, file);
    }
  } finally {
    await Promise.all(files.map(([file]) => rm(file + suffix, { force: true })));
  }
  return target;
}
