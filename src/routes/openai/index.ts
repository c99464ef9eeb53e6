// The OpenAI-compatible API under /v1: chat completions and models, in OpenAI's wire format and error shape.
export { openAiRoutes, type OpenAiRouteOptions } from './openai-routes.js';
