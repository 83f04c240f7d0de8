// The quickstart's webhook receiver: answers each call, asks for digits, logs them, hangs up.
import { createServer } from 'node:http';

const { API = 'http://127.0.0.1:8080', PORT = '3000' } = process.env;
const auth = { 'X-App-ID': 'quickstart', 'X-API-Key': 'quickstart-key-0123456789' };
const command = (session, name, body = {}) =>
  fetch(`${API}/api/v1/sessions/${session}/commands/${name}`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (res) => console.log(`  ${name} -> ${res.status} ${await res.text()}`));

// The prompt: one second of silence (8 kHz, 16-bit mono WAV), served from here, no internet needed.
const header =
  'RIFF\xa4\x3e\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\x80\x3e\0\0';
const wav = Buffer.concat([Buffer.from(header, 'latin1'), Buffer.alloc(16_000)]);
const prompt = `http://127.0.0.1:${PORT}/prompt.wav`;

createServer((req, res) => {
  if (req.url === '/prompt.wav')
    return res.writeHead(200, { 'Content-Type': 'audio/wav' }).end(wav);
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    res.writeHead(204).end(); // any 2xx within 15 s acknowledges the event
    const event = JSON.parse(body);
    console.log(event.event, body);
    if (event.event === 'call.new') {
      await command(event.session_uuid, 'answer');
      await command(event.session_uuid, 'play_and_get_digits', { prompt_files: [prompt] });
    } else if (event.event === 'digits.collected') {
      console.log(`digits: ${event.digits}`);
      await command(event.session_uuid, 'hangup');
    }
  });
}).listen(Number(PORT), '127.0.0.1', () => console.log(`receiver on http://127.0.0.1:${PORT}`));
