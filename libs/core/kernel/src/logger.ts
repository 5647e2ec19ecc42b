// The injection token of the structured logger (a pino Logger): the kernel's, so a context asks for the logger
// without importing the infrastructure that creates it.
export const LOGGER = Symbol('LOGGER');
