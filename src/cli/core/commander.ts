import { createRequire } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander, loaded as CommonJS. Its ESM entry re-exports the CommonJS package, and importing CommonJS
 * from ESM makes Node lex the source for its export names — on Node 20 with a WebAssembly lexer that it
 * compiles first, ~4 ms of every command's start. `require` skips the lexer; the classes are the same.
 */
const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const { Argument, Command, CommanderError, Option } = commander;
export type Argument = Commander.Argument;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
export type Option = Commander.Option;
