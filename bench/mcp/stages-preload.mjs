/**
 * Loaded into a side's process by stages.ts (`--import`): notes when each of a call's steps
 * happens, on the monotonic clock, while the bench has turned it on (SIGUSR1), and writes what it
 * noted to `STAGES_LOG` when told (SIGUSR2). What it notes:
 * - `request`: Node's HTTP server emits a request;
 * - the marks stages.ts put at the entry of the Gateway's functions (`globalThis.__stage`);
 * - `undici queues the write`: undici schedules the write of a request on a kept-alive socket
 *   for the event loop's check phase (its idle-socket check, GHSA-35p6-xmwp-9g52);
 * - `write upstream` and `write client`: a socket write begins, told apart by the upstream's port
 *   (`STAGES_UPSTREAM_PORT`); `upstream readable`: the upstream's answer is there to read.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Server } from 'node:http';
import { Socket } from 'node:net';

const upstreamPort = Number(process.env.STAGES_UPSTREAM_PORT);
const log = [];
let on = false;
const note = (label) => {
  if (on) log.push([label, Number(process.hrtime.bigint()) / 1000]);
};
globalThis.__stage = note;

const emitRequest = Server.prototype.emit;
Server.prototype.emit = function emit(event, ...args) {
  if (event === 'request') note('request');
  return emitRequest.call(this, event, ...args);
};
const immediate = globalThis.setImmediate;
globalThis.setImmediate = function setImmediate(work, ...args) {
  if (on && String(work).includes('kIdleSocketValidation')) note('undici queues the write');
  return immediate(work, ...args);
};
const writeGeneric = Socket.prototype._writeGeneric;
Socket.prototype._writeGeneric = function _writeGeneric(...args) {
  note(this.remotePort === upstreamPort ? 'write upstream' : 'write client');
  return writeGeneric.apply(this, args);
};
const emitSocket = Socket.prototype.emit;
Socket.prototype.emit = function emit(event, ...args) {
  if (event === 'readable' && this.remotePort === upstreamPort) note('upstream readable');
  return emitSocket.call(this, event, ...args);
};

process.on('SIGUSR1', () => {
  on = true;
});
process.on('SIGUSR2', () => {
  on = false;
  // Written whole under another name first: the bench reads the file once it exists.
  const file = process.env.STAGES_LOG ?? '/tmp/stages.json';
  writeFileSync(`${file}.part`, JSON.stringify(log));
  renameSync(`${file}.part`, file);
  log.length = 0;
});
