/**
 * A project as a thread's run is given it (the owner's object reads it, the thread caches it with step
 * 0, the context plugin writes it into the prompt): its instructions, and its files, a text file's text.
 */
export interface RunProject {
  id: string;
  name: string;
  instructions: string;
  /** Each file with its extracted text while the project is small enough to send whole (else null), and where its bytes are. */
  files: { id: string; name: string; mediaType: string; bytes: number; text: string | null; r2Key: string }[];
  /** The characters of text the project's files hold: past the run's budget, it retrieves passages instead. */
  textChars: number;
}
