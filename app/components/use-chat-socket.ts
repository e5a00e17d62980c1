import { useCallback, useEffect, useRef, useState } from "react";
import {
  chatMissedPath,
  chatSocketPath,
  CLOSE_SIGNED_OUT,
  parseServerEvent,
  reconnectDelay,
  type ClientEvent,
  type ServerEvent,
} from "~/domain/chat";

/** `signed-out`: the session that opened the socket was ended; nothing reconnects until the user logs in again. */
export type SocketStatus = "connecting" | "live" | "signed-out";

/** Keep-alive: the object answers "ping" with "pong" without waking up. */
const PING_MS = 25_000;

/** How often a page whose socket has never opened reads the messages it has not shown. */
const MISSED_EVERY_MS = 10_000;

/**
 * The live socket of a conversation: connects, reconnects after a drop with growing delays (at once when the
 * browser comes back online; a socket that goes silent or a browser that goes offline counts as a drop), and
 * hands every event to `onEvent`. On each (re)connection it asks for the messages after `after()` (the last shown),
 * and it tells the conversation when the tab goes out of view and comes back (what a hidden tab receives stays unread).
 * Until a socket has opened once (a proxy that drops WebSockets, while pages and posts go through), it reads them
 * over HTTP every 10 seconds instead, in a tab that is seen and online; failures are left for the next read. After
 * that, a drop is the network's, and the reconnection catches up.
 */
export function useChatSocket(chatId: string, handlers: { onEvent: (event: ServerEvent) => void; after: () => number }) {
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const socketRef = useRef<WebSocket | null>(null);
  const handlersRef = useRef(handlers);
  useEffect(() => {
    handlersRef.current = handlers;
  });

  /** Sends when the socket is open (1: WebSocket.OPEN); false otherwise (the caller falls back to posting the form). */
  const send = useCallback((event: ClientEvent): boolean => {
    const socket = socketRef.current;
    if (socket?.readyState !== 1) return false;
    socket.send(JSON.stringify(event));
    return true;
  }, []);

  useEffect(() => {
    let attempt = 0;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    /** Each socket's keep-alive timer, stopped with its socket. */
    const pings = new Map<WebSocket, ReturnType<typeof setInterval>>();

    /** Leaves a socket for good; unless it is the end, plans the next attempt. */
    const abandon = (socket: WebSocket) => {
      socket.onopen = socket.onmessage = socket.onclose = null;
      clearInterval(pings.get(socket));
      pings.delete(socket);
      // Still connecting (0) or open (1): WebSocket.CONNECTING and WebSocket.OPEN, by value (bytes on the page).
      if (socket.readyState < 2) socket.close(1000);
      if (socketRef.current === socket) socketRef.current = null;
    };
    const drop = (socket: WebSocket) => {
      const current = socketRef.current === socket;
      abandon(socket);
      if (!current || stopped) return;
      setStatus("connecting");
      clearTimeout(retry);
      retry = setTimeout(connect, reconnectDelay(attempt++));
    };

    /** Asks for what the page has not shown, and says whether the tab is in view (a hidden one has not seen them). */
    const sync = () => send({ type: "sync", after: handlersRef.current.after(), hidden: document.hidden });

    const connect = () => {
      const url = new URL(chatSocketPath(chatId), location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      // A tab out of view (a reconnection in the background) is not counted as there until it is seen.
      if (document.hidden) url.search = "hidden";
      const socket = new WebSocket(url);
      socketRef.current = socket;
      let heard = true;
      socket.onopen = () => {
        attempt = 0;
        clearInterval(readMissed);
        setStatus("live");
        sync();
        // A socket that stays silent through a whole ping interval is dead even if the browser has not noticed.
        pings.set(
          socket,
          setInterval(() => {
            if (!heard) return drop(socket);
            heard = false;
            socket.send("ping");
          }, PING_MS),
        );
      };
      socket.onmessage = (message) => {
        heard = true;
        if (message.data === "pong") return;
        const event = parseServerEvent(message.data);
        if (event) handlersRef.current.onEvent(event);
      };
      socket.onclose = (event) => {
        if (event.code !== CLOSE_SIGNED_OUT) return drop(socket);
        stopped = true;
        abandon(socket);
        setStatus("signed-out");
      };
    };
    const reconnectNow = () => {
      const current = socketRef.current;
      if (stopped || current?.readyState === 1) return;
      // An attempt made while offline may hang: start afresh.
      if (current) abandon(current);
      clearTimeout(retry);
      attempt = 0;
      connect();
    };
    const goneOffline = () => {
      if (socketRef.current) drop(socketRef.current);
    };

    const readMissed = setInterval(() => {
      if (stopped || document.hidden || !navigator.onLine) return;
      fetch(chatMissedPath(chatId, handlersRef.current.after()))
        .then((response) => response.text())
        .then(
          (body) => {
            const event = parseServerEvent(body);
            if (event) handlersRef.current.onEvent(event);
          },
          () => {},
        );
    }, MISSED_EVERY_MS);

    connect();
    window.addEventListener("online", reconnectNow);
    window.addEventListener("offline", goneOffline);
    document.addEventListener("visibilitychange", sync);
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearInterval(readMissed);
      window.removeEventListener("online", reconnectNow);
      window.removeEventListener("offline", goneOffline);
      document.removeEventListener("visibilitychange", sync);
      if (socketRef.current) abandon(socketRef.current);
    };
  }, [chatId, send]);

  return { status, send };
}
