// The time sessions are judged by (idle and absolute timeouts): the wall clock, injectable so that a test drives time
// instead of sleeping.
import { Injectable } from '@nestjs/common';

@Injectable()
export class SessionClock {
  now(): number {
    return Date.now();
  }
}
