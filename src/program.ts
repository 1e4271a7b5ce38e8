/**
 * Builds the commander tree. Each command lives in its own file under `src/commands/` and exports
 * `build(ctx)`; heavy modules are imported inside the actions, so building the tree is cheap.
 * Help and usage text go to the injected streams.
 */
import { Command, Option } from 'commander';
import { OUTPUT_FORMATS, type Context } from './context.js';
import * as login from './commands/auth/login.js';
import * as logout from './commands/auth/logout.js';
import * as authStatus from './commands/auth/status.js';
import * as authToken from './commands/auth/token.js';
import * as doctor from './commands/doctor/doctor.js';
import * as keywordsSearch from './commands/keywords/search.js';
import * as keywordsGet from './commands/keywords/get.js';
import * as keywordsRelations from './commands/keywords/relations.js';
import * as projectsList from './commands/projects/list.js';
import * as projectsCreate from './commands/projects/create.js';
import * as status from './commands/status/status.js';
import * as signals from './commands/signals/signals.js';
import * as opportunities from './commands/opportunities/opportunities.js';
import * as analysesRun from './commands/analyses/run.js';
import * as api from './commands/api/api.js';
import * as sandbox from './commands/sandbox/sandbox.js';
import * as completion from './commands/completion/completion.js';
import * as mcpTools from './commands/mcp/tools.js';
import * as mcpCall from './commands/mcp/call.js';
import * as mcpServe from './commands/mcp/serve.js';
import * as scoreboard from './commands/scoreboard/scoreboard.js';

export function buildProgram(ctx: Context): Command {
  const program = new Command('rsi')
    .description('Command-line client for the Research Intelligence Service')
    .version(ctx.version, '-V, --version', 'print the version')
    .option('--profile <name>', 'named set of base URL and credentials (env: RSI_PROFILE)')
    .option('--base-url <url>', 'service base address (env: RSI_BASE_URL)')
    .option('--json', 'machine output: the API JSON on stdout, nothing else')
    .addOption(new Option('--format <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--no-color', 'no colour (env: NO_COLOR)')
    .option('--debug', 'HTTP trace on stderr, secrets redacted (env: RSI_DEBUG=1)')
    .option('--http-timeout <seconds>', 'per-request timeout (env: RSI_HTTP_TIMEOUT, default 30)')
    .showSuggestionAfterError(true);

  program.addCommand(login.build(ctx));
  program.addCommand(logout.build(ctx));
  program.addCommand(group('auth', 'show and use the stored sign-in').addCommand(authStatus.build(ctx)).addCommand(authToken.build(ctx)));
  program.addCommand(doctor.build(ctx));
  program.addCommand(
    group('keywords', 'search keywords, read cards and relations')
      .addCommand(keywordsSearch.build(ctx))
      .addCommand(keywordsGet.build(ctx))
      .addCommand(keywordsRelations.build(ctx)),
  );
  program.addCommand(
    group('projects', 'list and create projects').addCommand(projectsList.build(ctx)).addCommand(projectsCreate.build(ctx)),
  );
  program.addCommand(status.build(ctx));
  program.addCommand(signals.build(ctx));
  program.addCommand(opportunities.build(ctx));
  program.addCommand(scoreboard.build(ctx));
  program.addCommand(group('analyses', 'start scoring analyses').addCommand(analysesRun.build(ctx)));
  program.addCommand(api.build(ctx));
  program.addCommand(sandbox.build(ctx));
  program.addCommand(completion.build(ctx));
  program.addCommand(
    group('mcp', "the service's MCP server from the terminal")
      .addCommand(mcpTools.build(ctx))
      .addCommand(mcpCall.build(ctx))
      .addCommand(mcpServe.build(ctx)),
  );

  applyToAll(program, (cmd) => {
    cmd
      .configureOutput({
        writeOut: (text) => void ctx.io.stdout.write(text),
        writeErr: (text) => void ctx.io.stderr.write(text),
        outputError: (text, write) => write(`rsi: ${text.replace(/^error: /, '').trimEnd()}\n`),
      })
      .exitOverride();
  });
  return program;
}

function group(name: string, description: string): Command {
  return new Command(name).description(description);
}

/** Settings set with configureOutput/exitOverride are not inherited through addCommand. */
export function applyToAll(cmd: Command, apply: (cmd: Command) => void): void {
  apply(cmd);
  for (const sub of cmd.commands) applyToAll(sub, apply);
}
