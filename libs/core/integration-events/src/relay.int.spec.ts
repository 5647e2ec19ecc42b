// The relay's contract on the embedded (in-process) message bus.
import { InProcessMessageBus } from '#message-bus/in-process-message-bus';
import { relayContract } from './relay.contract.js';

relayContract('in-process bus', async () => new InProcessMessageBus({ log: () => undefined }));
