// The session agent's bundle entry (dist/bundle/agent.js), started detached by src/core/session/spawn.ts.
import { startAgent } from './agent/agent.js';

// What ps shows: never the argv or environment of a command it serves.
process.title = 'stor session agent';
const agent = await startAgent(process.env);
if ('exitCode' in agent) {
  process.exitCode = agent.exitCode;
} else {
  process.once('SIGTERM', () => void agent.stop());
  process.once('SIGINT', () => void agent.stop());
  // An uncaught error ends the agent; clients then find no one listening and run in-process.
  const fatal = () => {
    try {
      agent.fatal();
    } finally {
      process.exit(70);
    }
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  process.exitCode = await agent.exited;
  // Sockets of sessions already closed must not hold the exit.
  process.exit();
}
