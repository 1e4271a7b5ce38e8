// PLACEHOLDER: replaced by the typed API client.
import type { Http } from '../http/types.js';

export class ApiClient {
  constructor(readonly http: Http) {}
}
