#!/usr/bin/env node
// Node 22.1 and later keep the compiled code of the CLI's modules on disk between runs (under the OS temp
// dir), which shortens every start after the first; on older Nodes there is nothing to enable.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/cli/main.js');
