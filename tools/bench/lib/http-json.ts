import { Pool } from 'undici';

export interface JsonReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * JSON requests to one origin over a keep-alive pool (the api, the simulator's control API),
 * each with a timeout: a server that stops answering fails the task instead of hanging the run.
 */
export class JsonClient {
  private readonly pool: Pool;

  constructor(origin: string, connections = 64) {
    this.pool = new Pool(origin, { connections, pipelining: 1 });
  }

  async request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    headers: Readonly<Record<string, string>> = {},
    body?: unknown,
  ): Promise<JsonReply> {
    const res = await this.pool.request({
      method,
      path,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  }

  /** Like request(), but anything other than `expected` throws with the answer. */
  async expect(
    expected: number,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    headers?: Readonly<Record<string, string>>,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    const reply = await this.request(method, path, headers, body);
    if (reply.status !== expected) {
      throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    return reply.body;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
