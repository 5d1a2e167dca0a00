import * as z from 'zod';
import { gitSettingsSchema } from '@cribl-exporter/api/resources';

/** The scenario's `git:` key (and PUT /_sim/git): the API's GitSettings, unknown keys refused. */
export const gitSchema = z.strictObject(gitSettingsSchema.shape);
