// k6 provides `console` in every context; @types/k6 does not declare it and these scripts do not
// load the DOM or Node typings (neither runtime is k6's).
declare global {
  const console: {
    log(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
  };
}

export {};
