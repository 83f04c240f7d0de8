import type { SimContext } from '../core/context.js';

/** An API command: its reply body (and, for originate, what happens after the reply). */
export type ApiResult = string | { readonly body: string; readonly after?: () => void };

export type ApiHandler = (ctx: SimContext, arg: string) => ApiResult | Promise<ApiResult>;
