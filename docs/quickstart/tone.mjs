// Reads a WAV (16-bit PCM mono) on stdin and says where a tone is in it: `node tone.mjs [hz]`.
// Exits 1 when there is none, or it lasts to the end. The quickstart runs it on what a simulated
// caller heard.
const hz = Number(process.argv[2] ?? 1000);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const wav = Buffer.concat(chunks);
const rate = wav.readUInt32LE(24);
const data = wav.indexOf('data', 12) + 8; // the samples follow the "data" chunk's header
const samples = new Int16Array(
  wav.buffer.slice(wav.byteOffset + data, wav.byteOffset + wav.length - ((wav.length - data) % 2)),
);

// Goertzel over 20 ms windows: a window has the tone when most of its energy is at `hz`.
const size = rate / 50;
const coeff = 2 * Math.cos((2 * Math.PI * hz) / rate);
const windows = [];
for (let start = 0; start + size <= samples.length; start += size) {
  let [s1, s2, energy] = [0, 0, 0];
  for (let i = start; i < start + size; i++) {
    const x = samples[i] / 32768;
    [s1, s2] = [x + coeff * s1 - s2, s1];
    energy += x * x;
  }
  const power = (s1 * s1 + s2 * s2 - coeff * s1 * s2) / (size / 2); // ≈ energy of a pure tone
  windows.push(energy > size * 1e-4 && power > 0.5 * energy);
}
const first = windows.indexOf(true);
if (first < 0) {
  console.log(`no ${hz} Hz tone`);
  process.exit(1);
}
const last = windows.lastIndexOf(true);
if (last === windows.length - 1) {
  console.log(`${hz} Hz tone from ${first * 20} ms, still going`);
  process.exit(1);
}
console.log(`${hz} Hz tone from ${first * 20} ms to ${(last + 1) * 20} ms`);
