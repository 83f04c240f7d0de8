// The quickstart's echo agent: a WebSocket server for media streams that plays the caller's audio
// back to the call, frame by frame, and logs every other frame.
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { markFrame, mediaFrame, parseStreamFrame, verifyStreamUpgrade } from '@voicegw/sdk';

const {
  PORT = '3001',
  // The app's webhook_secret (step 3): the gateway signs each upgrade request with it.
  VOICEGW_WEBHOOK_SECRET = 'whsec_cXVpY2tzdGFydC1zZWNyZXQtMDEyMzQ1Njc4OS1hYmNk',
} = process.env;
const sockets = new WebSocketServer({ noServer: true });
const server = createServer((req, res) => res.writeHead(426).end());

// Only the gateway may connect: the signature covers the URL given to stream/start, which is
// this server's address and the request's path.
server.on('upgrade', (req, socket, head) => {
  try {
    const url = `ws://127.0.0.1:${PORT}${req.url}`;
    verifyStreamUpgrade({ headers: req.headers, url, secret: VOICEGW_WEBHOOK_SECRET });
  } catch (err) {
    console.log(`refused ${req.url}: ${err.message}`);
    return socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
  }
  sockets.handleUpgrade(req, socket, head, (ws) => echo(ws));
});

function echo(ws) {
  let echoed = 0;
  ws.on('message', (data, isBinary) => {
    if (isBinary) return; // frames are JSON text
    let frame;
    try {
      frame = parseStreamFrame(data);
    } catch (err) {
      return console.log(`ignored: ${err.message}`);
    }
    if (frame.event !== 'media') return console.log(frame.event, JSON.stringify(frame));
    if (frame.media.track !== 'inbound') return; // what the caller says, not what the call hears
    // The same 20 ms of μ-law back, and a mark after each second of it.
    ws.send(mediaFrame(frame.streamSid, frame.media.payload));
    if (++echoed % 50 === 0) ws.send(markFrame(frame.streamSid, `echoed ${echoed / 50} s`));
  });
  ws.on('close', (code) => console.log(`closed ${code}`));
}

server.listen(Number(PORT), '127.0.0.1', () => console.log(`echo agent on ws://127.0.0.1:${PORT}`));
