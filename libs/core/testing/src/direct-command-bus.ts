// A command bus for int specs that build their runner by hand: it hands each command to the real handler of its
// class, as the CqrsModule's bus does in an application.
import type { Type } from '@nestjs/common';
import type { CommandBus, ICommand, ICommandHandler } from '@nestjs/cqrs';

export function directCommandBus(...routes: [Type<ICommand>, ICommandHandler][]): CommandBus {
  const handlers = new Map(routes);
  const bus: Pick<CommandBus, 'execute'> = {
    execute: (command: ICommand) => {
      const handler = handlers.get(command.constructor as Type<ICommand>);
      if (!handler) throw new Error(`no handler for ${command.constructor.name}`);
      return handler.execute(command);
    },
  };
  return bus as CommandBus;
}
