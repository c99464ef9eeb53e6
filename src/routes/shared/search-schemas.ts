// What the search bodies of both variants share: the ranking modes and the query field.
import { z } from 'zod';
import { searchModes } from '../../search/search-service.js';

export const searchModeSchema = z.enum(searchModes);

/** A search query: something other than whitespace (checked before trimming, so the API reference can state it as a pattern). */
export const searchQuerySchema = z.string().max(2_000).regex(/\S/, 'must not be empty').trim();
