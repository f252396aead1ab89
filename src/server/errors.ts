/** A validation problem attached to a 400 (DESIGN §4.2). */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The one error type of the server: an HTTP status and the `detail` the client sees. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    detail: string,
    options: { errors?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

/** 400 with the given detail. */
export const badRequest = (detail: string, errors?: FieldError[]) => new ApiError(400, detail, { errors });
/** 401 with the spec's message. */
export const unauthorized = () => new ApiError(401, 'Invalid or expired API key');
/** 403 with the given detail. */
export const forbidden = (detail = 'Insufficient permissions') => new ApiError(403, detail);
/** 404 with the given detail (`Job not found`, `Speaker not found`, ...). */
export const notFound = (detail: string) => new ApiError(404, detail);
