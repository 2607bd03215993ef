import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';

/** Wakes this replica's dispatcher at once when the intake here created deliveries (others find them at their poll). */
@Injectable()
export class DeliveryWakeUp {
  readonly signals = new EventEmitter();

  notify(): void {
    this.signals.emit('created');
  }
}
