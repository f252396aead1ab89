// play-sound ships no types; this is the part voxctl uses.
declare module 'play-sound' {
  interface Player {
    play(file: string, callback: (err: unknown) => void): unknown;
  }
  export default function createPlayer(options?: { players?: string[]; player?: string }): Player;
}
