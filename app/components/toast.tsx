/** A notice that closes by itself: the bar runs out at 4 s and it fades at about 6 s (CSS only, so it works without JavaScript). */
export function Toast({ message }: { message: string }) {
  return (
    <div className="toast" role="status">
      <span>{message}</span>
      <span className="toast-progress" aria-hidden="true" />
    </div>
  );
}
