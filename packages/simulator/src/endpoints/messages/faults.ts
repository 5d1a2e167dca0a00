/** The bulletins' fault key (`faults.messages`): bulletins listed while in force. */
import * as z from 'zod';
import { MESSAGE_SEVERITIES } from '@cribl-exporter/api/shapes';
import type { MessageSeverity } from '@cribl-exporter/api/shapes';
import { scheduled } from '../../core/schedule.js';
import type { Schedule } from '../../core/schedule.js';

/** A bulletin (GET /system/messages) listed while in force; its `time` is when its window began. */
export interface MessageSpec extends Schedule {
  id?: string;
  severity?: MessageSeverity;
  title?: string;
  text: string;
  group?: string;
}

export interface MessageFaults {
  messages: MessageSpec[];
}

export const messageFaultsShape = {
  messages: z.array(
    scheduled({
      id: z.string().min(1).optional(),
      severity: z.enum(MESSAGE_SEVERITIES).optional(),
      title: z.string().optional(),
      text: z.string().min(1),
      group: z.string().optional(),
    }),
  ),
};

export const DEFAULT_MESSAGE_FAULTS: Readonly<MessageFaults> = Object.freeze({ messages: [] });
