// The quickstart's webhook receiver: answers each call, asks for digits, logs them, hangs up.
import { createServer } from 'node:http';
import { createWebhookHandler, VoiceGateway } from '@voicegw/sdk';

const { API = 'http://127.0.0.1:8080', PORT = '3000' } = process.env;
const gateway = new VoiceGateway({
  baseUrl: API,
  appId: 'quickstart',
  apiKey: 'quickstart-key-0123456789',
});
// The app's webhook_secret (set in step 3): a webhook that does not verify with it answers 400.
const secret = 'whsec_cXVpY2tzdGFydC1zZWNyZXQtMDEyMzQ1Njc4OS1hYmNk';

// The prompt: one second of silence (8 kHz, 16-bit mono WAV), served from here, no internet needed.
const header =
  'RIFF\xa4\x3e\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\x80\x3e\0\0';
const wav = Buffer.concat([Buffer.from(header, 'latin1'), Buffer.alloc(16_000)]);
const prompt = `http://127.0.0.1:${PORT}/prompt.wav`;

// Each handler gets the verified event, typed by its name; a 204 acknowledges it afterwards.
const webhooks = createWebhookHandler(secret, {
  '*': (event) => console.log(event.event, JSON.stringify(event)),
  'call.new': async ({ session_uuid }) => {
    console.log('  answer ->', await gateway.sessions.answer(session_uuid));
    const digits = await gateway.sessions.playAndGetDigits(session_uuid, {
      prompt_files: [prompt],
    });
    console.log('  play_and_get_digits ->', digits);
  },
  'digits.collected': async ({ session_uuid, digits }) => {
    console.log(`digits: ${digits}`);
    console.log('  hangup ->', await gateway.sessions.hangup(session_uuid));
  },
});

createServer((req, res) => {
  if (req.url === '/prompt.wav')
    return res.writeHead(200, { 'Content-Type': 'audio/wav' }).end(wav);
  void webhooks(req, res);
}).listen(Number(PORT), '127.0.0.1', () => console.log(`receiver on http://127.0.0.1:${PORT}`));
